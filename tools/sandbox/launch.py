"""The sandbox's launcher: run as `python -I -S launch.py SPEC -- COMMAND...`, it confines itself
(a network namespace of its own, then Landlock, then a seccomp filter) and becomes COMMAND; if
any step fails it exits with CANNOT_CONFINE and a line on stderr, and never runs COMMAND
unconfined.

It is a separate program rather than a hook run in the forked child because the parent runs
threads, where code between fork and exec is unsafe; and it starts with `-I -S` so that nothing
of the command's environment (PYTHONPATH, PYTHONSTARTUP, a sitecustomize in the workspace) runs
before the confinement does. SPEC is JSON: {"writable": [dirs], "files": [paths],
"network": bool (open), "namespace": bool (close it with a namespace), "abi": int}.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import sys
from types import ModuleType

# The exit code when the sandbox cannot be applied: what a shell returns for a command that was
# found but could not be run (126), so no command's own code is taken for it.
CANNOT_CONFINE = 126
# What the launcher prints first on such a failure: tools/sandbox/denials.py recognises it.
FAILURE_PREFIX = "pleat sandbox: cannot confine the command: "
# unshare(2) flags: a user namespace (so an unprivileged process may make the next one) and a
# network namespace, where only a loopback interface exists, and it is down.
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000


def close_network() -> None:
    """A network namespace of this process's own: no interface is up, so no connection leaves
    it (TCP, UDP, and abstract Unix sockets, which belong to a namespace). The user namespace
    maps this process's own user and group to themselves, so files keep their owners."""
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"unshare: {os.strerror(number)}")
    maps = (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1"))
    for name, text in maps:
        with open(f"/proc/self/{name}", "w") as file:
            file.write(text)


def _sibling(name: str) -> ModuleType:
    """A module of this package (landlock, seccomp): imported from the package, or, when run as
    a script with -I, from this file's directory (the only place trusted to import from)."""
    if __package__:
        return importlib.import_module(f"tools.sandbox.{name}")
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path[0] != here:
        sys.path.insert(0, here)
    return importlib.import_module(name)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print(f"{FAILURE_PREFIX}usage: launch.py SPEC -- COMMAND...", file=sys.stderr)
        return CANNOT_CONFINE
    try:
        spec = json.loads(argv[0])
        if not spec["network"] and spec["namespace"]:
            close_network()
        _sibling("landlock").restrict(
            spec["writable"],
            spec["files"],
            close_tcp=not spec["network"],
            abi=int(spec["abi"]),
        )
        _sibling("seccomp").apply()  # after restrict(), which set no_new_privs
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"{FAILURE_PREFIX}{error}", file=sys.stderr)
        return CANNOT_CONFINE
    command = argv[2:]
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"pleat sandbox: {command[0]}: {error.strerror}", file=sys.stderr)
        return 127 if error.errno == 2 else CANNOT_CONFINE
    return CANNOT_CONFINE  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
