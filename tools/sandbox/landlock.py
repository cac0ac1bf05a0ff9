"""Linux Landlock through its three system calls (ctypes, no dependency): what the kernel supports,
and confining the calling process to a set of writable directories, no TCP, and its own scope.

A small module of our own rather than a library: the ABI is three syscalls and three structs,
stable since Linux 5.13 and versioned (each ABI adds rights); a binding on the package registry
would be one more pinned dependency for fifty lines, and the one maintained there (`landlock`)
covers ABI 1-4 only. Everything here runs in the child just before it becomes the command
(tools/sandbox/launch.py): a restriction, once applied, holds for it and everything it starts,
and cannot be lifted.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable

# System call numbers: the same on every architecture that has Landlock (the generic table);
# x86_64 and aarch64 both use 444-446.
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
# landlock_create_ruleset(NULL, 0, this flag) returns the highest ABI the kernel supports.
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
# prctl(PR_SET_NO_NEW_PRIVS): required before restrict_self by an unprivileged process, and a
# setuid program can then not regain what the sandbox took.
PR_SET_NO_NEW_PRIVS = 38

# File-system rights, by the ABI that introduced them.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2: link or rename across directories
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
# Network rights (ABI 4) and scopes (ABI 6).
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

# What reading takes, and everything that changes a file system: handled (so refused unless
# a rule allows it) in every confinement.
READ = EXECUTE | READ_FILE | READ_DIR
CHANGES_ABI1 = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_CHAR
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_BLOCK
    | MAKE_SYM
)


class LandlockError(OSError):
    """Landlock could not be set up (the errno of the call that failed)."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The Landlock ABI this kernel supports (0: none: not Linux, too old, or disabled)."""
    if os.uname().sysname != "Linux":
        return 0
    try:
        version = _libc().syscall(
            SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION)
        )
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


def fs_rights(abi: int) -> int:
    """Every file-system right this ABI handles."""
    rights = READ | CHANGES_ABI1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise LandlockError(number, f"{what}: {os.strerror(number)}")
    return result


def restrict(
    writable: Iterable[str],
    writable_files: Iterable[str] = (),
    *,
    close_tcp: bool,
    abi: int,
) -> None:
    """Confine this process (and what it will start): read and execute anywhere, change files
    only beneath `writable` directories and in the `writable_files` (device files such as
    /dev/null), no TCP bind or connect when `close_tcp` (ABI 4), no abstract Unix socket or
    signal out of the sandbox (ABI 6). Raises LandlockError (nothing is half applied: the
    restriction is one call at the end)."""
    libc = _libc()
    handled = fs_rights(abi)
    attr = _RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP if close_tcp and abi >= 4 else 0)
    attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8  # the struct as this ABI knows it
    ruleset = _check(
        libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0),
        "landlock_create_ruleset",
    )
    try:
        _allow(libc, ruleset, "/", READ & handled)
        for directory in writable:
            _allow(libc, ruleset, directory, handled)
        file_rights = (WRITE_FILE | READ_FILE | (TRUNCATE if abi >= 3 else 0)) & handled
        for path in writable_files:
            _allow(libc, ruleset, path, file_rights | (IOCTL_DEV & handled))
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")
        _check(libc.syscall(SYS_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    """Allow `rights` beneath `path` (a directory, or a file for file rights); a path that does
    not exist is skipped (a device file a system lacks)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= WRITE_FILE | READ_FILE | EXECUTE | TRUNCATE | IOCTL_DEV
        rule = _PathBeneathAttr(rights, fd)
        _check(
            libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0),
            f"landlock_add_rule({path})",
        )
    finally:
        os.close(fd)
