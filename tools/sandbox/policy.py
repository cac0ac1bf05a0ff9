"""The sandbox every command runs in: its mode, what this machine can enforce, and the argv and
environment that confine one command (tools/sandbox/launch.py applies them in the child).

- `workspace-write`: commands read the machine but change files only in the workspace, a
  private temporary directory (TMPDIR points there) and /dev/shm (and, in one of pleat's git
  worktrees, the git metadata a commit there writes), and reach no network;
- `read-only`: they change files only in that temporary directory;
- `off`: as without a sandbox.
The network is closed by a network namespace of the command's own (no interface is up: TCP,
UDP and abstract Unix sockets alike) and, where Landlock's ABI has them, by TCP rules as well;
`network=True` opens it. Where the kernel cannot enforce the mode (no Landlock, or neither a
namespace nor TCP rules to close the network), the sandbox is not active: pleat says so and
asks before each command instead, never running one unconfined while claiming a sandbox.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tools.sandbox import seccomp
from tools.sandbox.landlock import abi_version
from tools.sandbox.launch import PROBE, SHARED_MEMORY, Spec
from tools.sandbox.modes import NO_LANDLOCK_VARIABLE, SandboxMode
from tools.sandbox.worktree_paths import worktree_git_paths

# The launcher and the modules it loads: copied, at the first command, into a directory of
# pleat's own that no command may write, and run from there by the interpreter's real file with
# -I -S (nothing of the command's environment runs before the confinement). Run in place, a
# command could rewrite them when pleat is installed in the workspace (found by review).
LAUNCHER_FILES = ("launch.py", "landlock.py", "seccomp.py")
HERE = Path(__file__).resolve().parent
# Device files every command may write: the sinks and sources programs expect to open for
# writing (a shell's `2>/dev/null`, a terminal); none of them stores anything.
WRITABLE_DEVICES = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/random",
    "/dev/urandom",
)
# How long the PID namespace probe may take: it forks twice and mounts /proc, some 20 ms; a
# machine too busy to do it in 10 s is treated as one without (commands still run confined).
PROBE_SECONDS = 10.0


@dataclass(frozen=True)
class Support:
    """What this machine can enforce."""

    abi: int  # Landlock's ABI (0: none)
    namespaces: bool  # unprivileged user and network namespaces
    socket_filter: bool = True  # tools/sandbox/seccomp.py has this machine's system call table
    pids: bool = False  # PID namespaces with their own /proc (a container may refuse them)

    @property
    def filesystem(self) -> bool:
        """Whether the file system can be confined: Landlock, and the filter that closes the
        Unix sockets through which a process outside would act for the command."""
        return self.abi >= 1 and self.socket_filter

    @property
    def network(self) -> str:
        """How the network is closed: "namespace", "tcp" (Landlock's TCP rules only: UDP stays
        open), or "" (it cannot be)."""
        return "namespace" if self.namespaces else "tcp" if self.abi >= 4 else ""

    def describe(self) -> str:
        """One line: what is enforced here."""
        if self.abi < 1:
            return "not enforced here (the kernel has no Landlock)"
        if not self.socket_filter:
            return "not enforced here (no system call filter for this processor)"
        network = {
            "namespace": "network closed by a network namespace and Landlock's TCP rules",
            "tcp": "only TCP closed (Landlock's TCP rules; no user namespaces here)",
            "": "network not closable here",
        }[self.network]
        return f"file system by Landlock (ABI {self.abi}), no Unix sockets; {network}"


@functools.cache
def machine_support() -> Support:
    """What this machine can enforce (asked once)."""
    if os.environ.get(NO_LANDLOCK_VARIABLE) == "1" or not sys.platform.startswith("linux"):
        return Support(0, False)
    namespaces = _namespaces()
    return Support(abi_version(), namespaces, seccomp.supported(), namespaces and _pids())


def _pids() -> bool:
    """Whether the launcher can make a PID namespace with its own /proc here (asked of it once:
    about 20 ms)."""
    probe = [sys.executable, "-I", "-S", str(HERE / "launch.py"), PROBE]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=PROBE_SECONDS, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _namespaces() -> bool:
    """Whether an unprivileged process may make a user namespace (the sysctls that forbid it)."""
    for path, closed in (
        ("/proc/sys/user/max_user_namespaces", "0"),
        ("/proc/sys/kernel/unprivileged_userns_clone", "0"),
    ):
        try:
            if Path(path).read_text().strip() == closed:
                return False
        except OSError:
            continue
    return True


def _own_files_in(directory: Path) -> Path | None:
    """The first of pleat's own files (the interpreter, its prefix, pleat's code) that lies in
    `directory` (resolved), or None."""
    for own in (Path(sys.executable).resolve(), Path(sys.prefix).resolve(), HERE.parents[1]):
        if own == directory or directory in own.parents:
            return own
    return None


@dataclass
class Sandbox:
    """The sandbox of one run: its mode, whether the network is open, the workspace, and the
    private temporary directory (made at first use, removed when pleat exits)."""

    mode: SandboxMode
    workspace: Path
    network: bool = False
    support: Support = field(default_factory=machine_support)
    # Whether a command line may reach the network although the sandbox closes it: one an allow
    # rule names (agent/assemble.py sets it from the permission rules).
    opens_network: Callable[[str], bool] = lambda _command: False
    # Directories outside the workspace the user added (`--add-dir`, `/add-dir`, `add_dirs`:
    # agent/permissions/added_dirs.py), resolved: writable like the workspace in
    # workspace-write (not in read-only). Kept here, on the one sandbox every agent of a run
    # shares, so the file tools' roots (tools/base.py extra_roots) follow them too.
    added: tuple[Path, ...] = ()
    _temp: Path | None = None
    _launcher: Path | None = None

    @functools.cached_property
    def git_paths(self) -> tuple[Path, ...]:
        """The main repository's git directories a command must write to commit in the
        workspace, when it is one of pleat's worktrees (tools/sandbox/worktree_paths.py);
        writable in workspace-write only, and not roots of the file tools."""
        return worktree_git_paths(self.workspace) if self.mode == "workspace-write" else ()

    @functools.cached_property
    def exposed(self) -> Path | None:
        """A file pleat runs or imports that a confined command could change: the interpreter,
        its prefix (a virtual environment's packages), or pleat's own code inside the
        workspace. Unconfined pleat would later run what such a command wrote, so then the
        sandbox is not enforced (the first one found; None: none)."""
        if self.mode != "workspace-write":
            return None
        for writable in (self.workspace.resolve(), *self.added):
            if (own := _own_files_in(writable)) is not None:
                return own
        return None

    def add(self, directory: Path) -> Path | None:
        """Add a directory (resolved) to `added` for the rest of the run (/add-dir). Refused
        when, writable, it would expose pleat's own files (`exposed`): the sandbox would stop
        holding in the middle of the run; that file is returned and nothing changes."""
        if self.mode == "workspace-write" and (own := _own_files_in(directory)) is not None:
            return own
        if directory not in self.added:
            self.added = (*self.added, directory)
        return None

    @property
    def active(self) -> bool:
        """Whether commands run confined: a mode other than off that this machine enforces."""
        if self.mode == "off" or not self.support.filesystem or self.exposed is not None:
            return False
        return self.network or bool(self.support.network)

    @property
    def unenforced(self) -> bool:
        """A mode was asked for that this machine cannot enforce (said once, at start)."""
        return self.mode != "off" and not self.active

    @property
    def temp(self) -> Path:
        if self._temp is None:
            self._temp = Path(tempfile.mkdtemp(prefix="pleat-sandbox-"))
            atexit.register(shutil.rmtree, self._temp, ignore_errors=True)
        return self._temp

    @property
    def launcher(self) -> Path:
        """The launcher's private copy (made at first use, removed when pleat exits)."""
        if self._launcher is None:
            directory = Path(tempfile.mkdtemp(prefix="pleat-launcher-"))
            atexit.register(shutil.rmtree, directory, ignore_errors=True)
            for name in LAUNCHER_FILES:
                (directory / name).write_bytes((HERE / name).read_bytes())
            self._launcher = directory / "launch.py"
        return self._launcher

    def writable(self) -> list[str]:
        """The directories a confined command may change."""
        # Shared memory for Python's multiprocessing (pytest -n), semaphores and browsers: the
        # PID namespace's own, where there is one. Not in read-only, where it would outlive
        # the command.
        if self.mode == "read-only":
            return [str(self.temp)]
        added = [str(directory) for directory in (*self.added, *self.git_paths)]
        return [str(self.workspace.resolve()), *added, str(self.temp), SHARED_MEMORY]

    def argv(
        self, command: Sequence[str], *, network: bool = False, ends_with_it: bool = True
    ) -> list[str]:
        """The argv that runs `command` confined (the launcher, then the command); `network`
        opens the network to this one command; `ends_with_it`: whatever the command starts
        ends when it ends (a PID namespace, where the machine has them; an MCP server's
        processes are left to the server, which pleat stops as a whole)."""
        spec = Spec(
            self.writable(),
            list(WRITABLE_DEVICES),
            network=self.network or network,
            namespace=self.support.network == "namespace",
            pids=ends_with_it and self.support.pids,
            abi=self.support.abi,
        )
        python = str(Path(sys.executable).resolve())
        return [python, "-I", "-S", str(self.launcher), *spec.arguments(), "--", *command]

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """The command's environment with its temporary directory pointing at the private one."""
        temp = str(self.temp)
        return {**env, "TMPDIR": temp, "TMP": temp, "TEMP": temp}

    @property
    def label(self) -> str:
        """A word or two for the status bar: the mode, and whether it holds here."""
        return f"{self.mode} (not enforced)" if self.unenforced else self.mode

    def describe(self) -> str:
        """One line for /sandbox and the start-up notice."""
        if self.mode == "off":
            return "sandbox off: commands run with all of your rights"
        if self.exposed is not None:
            return (
                f"sandbox {self.mode} asked for, but not enforced: pleat's own files "
                f"({self.exposed}) lie in the workspace or an added directory, where a command "
                "could change what pleat runs next; install pleat outside it (pipx, uv tool). "
                "Commands ask first"
            )
        if not self.active:
            return (
                f"sandbox {self.mode} asked for, but {self.support.describe()}: commands run "
                "unconfined, so they ask first as with the sandbox off (unless your mode or "
                "allow rules let them run)"
            )
        network = "network open" if self.network else "no network"
        return f"sandbox {self.mode} ({network}); {self.support.describe()}"
