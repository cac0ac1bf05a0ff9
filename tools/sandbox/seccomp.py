"""A seccomp filter for what Landlock and the network namespace leave open: a confined command
may make internet and netlink sockets only, so no Unix-domain socket (a path such as
/var/run/docker.sock or the user's D-Bus is a door to a process outside the sandbox, which would
do the command's bidding unconfined) and no vsock; nor an io_uring (whose operations bypass
seccomp); nor the kernel's keyrings (shared with the user's session: a command could read,
change or unlink the user's keys, found by review); nor the terminal ioctls that push input
into a terminal (TIOCSTI) or act on a console (TIOCLINUX), should a terminal ever be reachable.
socketpair(2) stays allowed: two ends made together reach nobody else, and multiprocessing and
test runners use them.

A small classic-BPF program through prctl(2) (ctypes, no dependency), applied last in the child,
after no_new_privs; like Landlock it holds for everything the command starts. A system call from
another architecture's table (32-bit `int 0x80`, x32) is refused outright: its numbers differ,
so the filter could not read it.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

# prctl(2) and seccomp(2) constants.
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
# Filter results: let the call through, or fail it with this errno in the low bits.
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
# Classic BPF opcodes: load a 32-bit word of seccomp_data, jump if equal / if >=, return.
LD_W_ABS, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06
# Offsets in struct seccomp_data: the call's number, the architecture, the first and second
# arguments' low 32 bits (little-endian machines only, the two below).
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET, ARG1_OFFSET = 0, 4, 16, 24


class Table:
    """One machine's numbers: the audit architecture of its native calls, socket(2), ioctl(2),
    and the calls refused outright (io_uring_setup; add_key, request_key, keyctl). A plain
    class: the launcher imports this module before every command, and dataclasses would add
    a tenth of its start-up."""

    def __init__(self, arch: int, *, socket: int, ioctl: int, refused: tuple[int, ...]) -> None:
        self.arch, self.socket, self.ioctl, self.refused = arch, socket, ioctl, refused


TABLES = {
    "x86_64": Table(0xC000003E, socket=41, ioctl=16, refused=(425, 248, 249, 250)),
    "aarch64": Table(0xC00000B7, socket=198, ioctl=29, refused=(425, 217, 218, 219)),
}
# ioctl(2) requests refused on any descriptor: TIOCSTI (push bytes into a terminal's input, as
# if typed) and TIOCLINUX (console tricks, including TIOCSTI's).
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
# x32 calls carry the x86_64 architecture with this bit set in their number.
X32_BIT = 0x40000000
# The socket families a confined command may make: those of the network namespace (internet
# sockets, closed by it and by Landlock's TCP rules; netlink, which `ip` and name lookups use).
# Every other one is refused: Unix-domain sockets (paths outside the sandbox), vsock (a virtual
# machine's host, which no namespace separates), and families no build or test needs.
AF_INET, AF_INET6, AF_NETLINK = 2, 10, 16


class _Program(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


# One instruction before assembly: opcode, constant, and the labels a jump goes to when its
# test holds and when it does not ("" for the next instruction).
Step = tuple[int, int, str, str]


def _assemble(blocks: dict[str, list[Step]]) -> bytes:
    """The labelled blocks, in order, as classic BPF (jumps made relative, forward only)."""
    starts: dict[str, int] = {}
    steps: list[Step] = []
    for label, block in blocks.items():
        starts[label] = len(steps)
        steps += block

    def offset(label: str, at: int) -> int:
        return 0 if not label else starts[label] - at - 1

    return b"".join(
        struct.pack("=HBBI", code, offset(yes, at), offset(no, at), k)
        for at, (code, k, yes, no) in enumerate(steps)
    )


def program(machine: str) -> bytes:
    """The filter for this machine (KeyError for one it has no table for)."""
    table = TABLES[machine]
    refuse = RET_ERRNO | errno.EACCES
    return _assemble(
        {
            "start": [
                (LD_W_ABS, ARCH_OFFSET, "", ""),
                (JEQ_K, table.arch, "", "refuse"),  # another architecture's call
                (LD_W_ABS, NR_OFFSET, "", ""),
                (JGE_K, X32_BIT, "refuse", ""),  # an x32 call
                *((JEQ_K, number, "refuse", "") for number in table.refused),
                (JEQ_K, table.socket, "socket", ""),
                (JEQ_K, table.ioctl, "ioctl", ""),
                (RET_K, RET_ALLOW, "", ""),  # any other call
            ],
            "socket": [  # socket(domain, ...): the families of the network namespace only
                (LD_W_ABS, ARG0_OFFSET, "", ""),
                (JEQ_K, AF_INET, "allow", ""),
                (JEQ_K, AF_INET6, "allow", ""),
                (JEQ_K, AF_NETLINK, "allow", "refuse"),
            ],
            "ioctl": [  # ioctl(fd, request, ...): not the terminal's input
                (LD_W_ABS, ARG1_OFFSET, "", ""),
                (JEQ_K, TIOCSTI, "refuse", ""),
                (JEQ_K, TIOCLINUX, "refuse", "allow"),
            ],
            "refuse": [(RET_K, refuse, "", "")],
            "allow": [(RET_K, RET_ALLOW, "", "")],
        }
    )


def supported() -> bool:
    """Whether this machine has a table here (the sandbox is not active without it)."""
    return os.uname().machine in TABLES


def apply() -> None:
    """Install the filter on this process (no_new_privs must be set: Landlock's restrict()
    sets it). Raises OSError."""
    code = program(os.uname().machine)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp: {os.strerror(number)}")
