"""A seccomp filter for what Landlock and the network namespace leave open: a confined command
may make internet and netlink sockets only, so no Unix-domain socket (a path such as
/var/run/docker.sock or the user's D-Bus is a door to a process outside the sandbox, which would
do the command's bidding unconfined) and no vsock; nor an io_uring (whose operations bypass
seccomp). socketpair(2) stays allowed: two ends made together reach nobody else, and
multiprocessing and test runners use them.

A small classic-BPF program through prctl(2) (ctypes, no dependency), applied last in the child,
after no_new_privs; like Landlock it holds for everything the command starts. A system call from
another architecture's table (32-bit `int 0x80`, x32) is refused outright: its numbers differ,
so the filter could not read it.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

# prctl(2) and seccomp(2) constants.
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
# Filter results: let the call through, or fail it with this errno in the low bits.
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
# Classic BPF opcodes: load a 32-bit word of seccomp_data, jump if equal / if >=, return.
LD_W_ABS, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06
# Offsets in struct seccomp_data: the call's number, the architecture, the first argument's
# low 32 bits (little-endian machines only, the two below).
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET = 0, 4, 16
# Per machine: the audit architecture of its native calls, and the numbers of socket(2) and
# io_uring_setup(2) in its table.
TABLES = {
    "x86_64": (0xC000003E, 41, 425),
    "aarch64": (0xC00000B7, 198, 425),
}
# x32 calls carry the x86_64 architecture with this bit set in their number.
X32_BIT = 0x40000000
# The socket families a confined command may make: those of the network namespace (internet
# sockets, closed by it and by Landlock's TCP rules; netlink, which `ip` and name lookups use).
# Every other one is refused: Unix-domain sockets (paths outside the sandbox), vsock (a virtual
# machine's host, which no namespace separates), and families no build or test needs.
AF_INET, AF_INET6, AF_NETLINK = 2, 10, 16


class _Program(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def _op(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str) -> bytes:
    """The filter for this machine (KeyError for one it has no table for)."""
    arch, socket_nr, io_uring_nr = TABLES[machine]
    refuse = RET_ERRNO | errno.EACCES
    return b"".join(
        (
            _op(LD_W_ABS, 0, 0, ARCH_OFFSET),  # 0
            _op(JEQ_K, 1, 0, arch),  # 1: another architecture's call: refused
            _op(RET_K, 0, 0, refuse),  # 2
            _op(LD_W_ABS, 0, 0, NR_OFFSET),  # 3
            _op(JGE_K, 7, 0, X32_BIT),  # 4: an x32 call: refused (12)
            _op(JEQ_K, 6, 0, io_uring_nr),  # 5: io_uring: refused (12)
            _op(JEQ_K, 1, 0, socket_nr),  # 6: socket(2): its domain is looked at (8)
            _op(RET_K, 0, 0, RET_ALLOW),  # 7: any other call
            _op(LD_W_ABS, 0, 0, ARG0_OFFSET),  # 8: socket(domain, ...)
            _op(JEQ_K, 3, 0, AF_INET),  # 9 -> 13
            _op(JEQ_K, 2, 0, AF_INET6),  # 10 -> 13
            _op(JEQ_K, 1, 0, AF_NETLINK),  # 11 -> 13
            _op(RET_K, 0, 0, refuse),  # 12
            _op(RET_K, 0, 0, RET_ALLOW),  # 13
        )
    )


def supported() -> bool:
    """Whether this machine has a table here (the sandbox is not active without it)."""
    return platform.machine() in TABLES


def apply() -> None:
    """Install the filter on this process (no_new_privs must be set: Landlock's restrict()
    sets it). Raises OSError."""
    code = program(platform.machine())
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp: {os.strerror(number)}")
