"""The sandbox's launcher: run as `python -I -S launch.py SPEC... -- COMMAND...`, it confines itself
(namespaces of its own, then Landlock, then a seccomp filter) and becomes COMMAND; if any step
fails it exits with CANNOT_CONFINE and a line on stderr, and never runs COMMAND unconfined.

With "pids" in SPEC the command runs in a PID namespace of its own, under a small init (this
launcher, forked): when the command ends, or the launcher is killed, the kernel ends every
process it left behind, so nothing it started (`setsid`, a double fork) outlives it to go on
changing the workspace after the user looked (found by review). The namespace gets its own
/proc, showing its own processes only, and its own /dev/shm.

It is a separate program rather than a hook run in the forked child because the parent runs
threads, where code between fork and exec is unsafe; and it starts with `-I -S` so that nothing
of the command's environment (PYTHONPATH, PYTHONSTARTUP, a sitecustomize in the workspace) runs
before the confinement does. SPEC is flags (Spec.arguments: plain words, not JSON, whose import
would be half of the launcher's start-up).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import signal
import sys
from types import ModuleType

# The exit code when the sandbox cannot be applied: what a shell returns for a command that was
# found but could not be run (126), so no command's own code is taken for it.
CANNOT_CONFINE = 126
# What the launcher prints first on such a failure: tools/sandbox/denials.py recognises it.
FAILURE_PREFIX = "pleat sandbox: cannot confine the command: "
# unshare(2) flags: a user namespace (so an unprivileged process may make the others), a
# network namespace (only a loopback interface, and it is down), a PID namespace (for the
# children made next) and a mount namespace (for its /proc).
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
CLONE_NEWPID, CLONE_NEWNS = 0x20000000, 0x00020000
# mount(2) flags: mounts of this namespace no longer shared with the one it came from; and a
# /proc or /dev/shm that runs nothing and holds no device.
MS_REC, MS_PRIVATE = 0x4000, 0x40000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x2, 0x4, 0x8
# prctl(PR_SET_PDEATHSIG): the init gets this signal when the launcher dies (even by SIGKILL),
# and its death ends the namespace.
PR_SET_PDEATHSIG = 1
# Shared memory: a tmpfs of the PID namespace's own where the command may write it.
SHARED_MEMORY = "/dev/shm"
# The argument that asks the launcher whether PID namespaces work here (tools/sandbox/policy.py
# asks once; a container may refuse a new /proc).
PROBE = "--probe-pids"
# The signals the launcher passes on to the command (through the init): what pleat or a
# terminal sends to stop it. Others end the launcher, and so the command.
PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def enter_namespaces(*, network: bool, pids: bool) -> None:
    """Namespaces of this process's own: a network one with no interface up unless `network`
    (so no connection leaves: TCP, UDP, abstract Unix sockets, which belong to a namespace),
    and with `pids` a PID and a mount namespace for the children. The user namespace maps this
    process's own user and group to themselves, so files keep their owners."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | (0 if network else CLONE_NEWNET)
    flags |= CLONE_NEWPID | CLONE_NEWNS if pids else 0
    _check(_libc().unshare(flags), "unshare")
    maps = (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1"))
    for name, text in maps:
        with open(f"/proc/self/{name}", "w") as file:
            file.write(text)


def _mount(source: str, target: str, kind: str | None, flags: int, data: str | None) -> None:
    def encoded(text: str | None) -> bytes | None:
        return None if text is None else text.encode()

    result = _libc().mount(encoded(source), encoded(target), encoded(kind), flags, encoded(data))
    _check(result, f"mount {target}")


def become_init(shared_memory: bool) -> None:
    """In the PID namespace's first process: its own /proc and /dev/shm, and death with the
    launcher."""
    _check(_libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")
    _mount("none", "/", None, MS_REC | MS_PRIVATE, None)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    if shared_memory:
        _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")


def wait_for(child: int) -> int:
    """Reap every process until `child` ends (an init's duty: orphans come to it); its wait
    status."""
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return 0
        if pid == child:
            return status


def pass_signals_to(pid: int) -> None:
    for number in PASSED_ON:
        signal.signal(number, lambda received, _frame: os.kill(pid, received))


def end_as(status: int) -> None:
    """End this process as the wait status says its child ended: the same code, or the same
    signal (taken with the default action)."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):  # those two take no handler
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else CANNOT_CONFINE)


def _sibling(name: str) -> ModuleType:
    """A module of this package (landlock, seccomp): imported from the package, or, when run as
    a script with -I, from this file's directory (the only place trusted to import from)."""
    if __package__:
        return importlib.import_module(f"tools.sandbox.{name}")
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path[0] != here:
        sys.path.insert(0, here)
    return importlib.import_module(name)


class Spec:
    """What to confine a command to: the directories and files it may write, whether the
    network is open, whether namespaces can be made here, whether the command gets a PID
    namespace, and Landlock's ABI."""

    FLAGS = ("--writable", "--file", "--network", "--namespace", "--pids", "--abi")

    def __init__(
        self,
        writable: list[str],
        files: list[str],
        *,
        network: bool,
        namespace: bool,
        pids: bool,
        abi: int,
    ) -> None:
        self.writable, self.files = writable, files
        self.network, self.namespace, self.pids, self.abi = network, namespace, pids, abi

    def arguments(self) -> list[str]:
        """The launcher's arguments before `--`."""
        words = [w for path in self.writable for w in ("--writable", path)]
        words += [w for path in self.files for w in ("--file", path)]
        for flag, on in (("--network", self.network), ("--namespace", self.namespace)):
            words += [flag, "1" if on else "0"]
        return [*words, "--pids", "1" if self.pids else "0", "--abi", str(self.abi)]

    @classmethod
    def parse(cls, words: list[str]) -> Spec:
        """The spec of `words` (flag, value pairs). Raises ValueError."""
        if len(words) % 2:
            raise ValueError(f"{words[-1]} has no value")
        found: dict[str, list[str]] = {flag: [] for flag in cls.FLAGS}
        for flag, value in zip(words[::2], words[1::2], strict=True):
            if flag not in found:
                raise ValueError(f"unknown flag {flag}")
            found[flag].append(value)

        def switch(flag: str) -> bool:
            values = found[flag]
            if values not in (["0"], ["1"]):
                raise ValueError(f"{flag} takes 0 or 1, once")
            return values == ["1"]

        if len(found["--abi"]) != 1 or not found["--abi"][0].isdigit():
            raise ValueError("--abi takes a number, once")
        return cls(
            found["--writable"],
            found["--file"],
            network=switch("--network"),
            namespace=switch("--namespace"),
            pids=switch("--pids"),
            abi=int(found["--abi"][0]),
        )


def confine_and_run(spec: Spec, command: list[str]) -> int:
    """Landlock, the filter, then the command (in this process: exec)."""
    try:
        _sibling("landlock").restrict(
            spec.writable, spec.files, close_tcp=not spec.network, abi=spec.abi
        )
        _sibling("seccomp").apply()  # after restrict(), which set no_new_privs
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"{FAILURE_PREFIX}{error}", file=sys.stderr)
        return CANNOT_CONFINE
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"pleat sandbox: {command[0]}: {error.strerror}", file=sys.stderr)
        return 127 if error.errno == 2 else CANNOT_CONFINE
    return CANNOT_CONFINE  # not reached: exec replaced this process


def run_as_init(spec: Spec, command: list[str], report: int) -> int:
    """The PID namespace's init: mounts, then the command as its child. How the command ended
    (its wait status) goes to the launcher through `report`: an init cannot end itself by a
    signal, so the launcher does it."""
    try:
        become_init(SHARED_MEMORY in spec.writable)
    except OSError as error:
        print(f"{FAILURE_PREFIX}{error}", file=sys.stderr)
        return CANNOT_CONFINE
    child = os.fork()
    if child == 0:
        os._exit(confine_and_run(spec, command))
    pass_signals_to(child)
    os.write(report, str(wait_for(child)).encode())
    return 0


def in_pid_namespace(spec: Spec | None, command: list[str]) -> int:
    """Fork the namespace's init, pass signals on to it, and end as the command ended."""
    read_end, report = os.pipe()  # closed on exec: the command never holds it
    init = os.fork()  # the first process of the new PID namespace
    if init == 0:
        os.close(read_end)
        os._exit(probe() if spec is None else run_as_init(spec, command, report))
    os.close(report)
    pass_signals_to(init)
    status = wait_for(init)
    with os.fdopen(read_end, "rb") as reported:
        said = reported.read()
    end_as(int(said) if said.isdigit() else status)
    return CANNOT_CONFINE  # not reached


def probe() -> int:
    """Whether a PID namespace with its own /proc can be made here (0: yes)."""
    try:
        become_init(shared_memory=False)
    except OSError:
        return 1
    return 0


def main(argv: list[str]) -> int:
    if argv == [PROBE]:
        try:
            enter_namespaces(network=True, pids=True)
        except OSError:
            return 1
        return in_pid_namespace(None, [])
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print(f"{FAILURE_PREFIX}usage: launch.py SPEC... -- COMMAND...", file=sys.stderr)
        return CANNOT_CONFINE
    split = argv.index("--")
    command = argv[split + 1 :]
    try:
        spec = Spec.parse(argv[:split])
        if spec.namespace and (spec.pids or not spec.network):
            enter_namespaces(network=spec.network, pids=spec.pids)
    except (OSError, ValueError) as error:
        print(f"{FAILURE_PREFIX}{error}", file=sys.stderr)
        return CANNOT_CONFINE
    if spec.namespace and spec.pids:
        return in_pid_namespace(spec, command)
    return confine_and_run(spec, command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
