"""The launcher never runs a command it could not confine: a bad spec, a rule the kernel refuses
or a missing program are one line on stderr and an exit code, and the command does not run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.sandbox_support import needs_sandbox
from tools.sandbox.launch import CANNOT_CONFINE, FAILURE_PREFIX, Spec
from tools.sandbox.policy import HERE

# The launcher as the package holds it (pleat runs a private copy: test_policy).
LAUNCHER = HERE / "launch.py"


def launch(spec: Spec | list[str], *command: str) -> subprocess.CompletedProcess[str]:
    words = spec.arguments() if isinstance(spec, Spec) else spec
    argv = [sys.executable, "-I", "-S", str(LAUNCHER), *words, "--", *command]
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def spec(writable: list[str], *, pids: bool = False) -> Spec:
    return Spec(writable, [], network=False, namespace=True, pids=pids, abi=7)


def test_a_spec_it_cannot_apply_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    good = spec([str(tmp_path)]).arguments()
    for bad in (
        good[:-1],  # --abi without its value
        [*good, "--color", "1"],
        ["--network", "yes", *good[2:]],
        [*good[:-1], "seven"],
        good[:-2],  # no --abi
    ):
        done = launch(bad, "touch", str(marker))
        assert done.returncode == CANNOT_CONFINE, bad
        assert done.stderr.startswith(FAILURE_PREFIX) and done.stderr.count("\n") == 1
        assert not marker.exists()
    for no_command in ([*good, "--"], good):
        usage = subprocess.run(
            [sys.executable, "-I", "-S", str(LAUNCHER), *no_command], capture_output=True, text=True
        )
        assert usage.returncode == CANNOT_CONFINE and "usage" in usage.stderr


@needs_sandbox
def test_a_missing_program_is_127_and_a_confined_one_runs(tmp_path: Path) -> None:
    done = launch(spec([str(tmp_path)]), "no-such-program-anywhere")
    assert done.returncode == 127
    assert done.stderr == "pleat sandbox: no-such-program-anywhere: No such file or directory\n"
    done = launch(spec([str(tmp_path)]), "sh", "-c", f"echo ok > {tmp_path}/f && cat {tmp_path}/f")
    assert (done.returncode, done.stdout) == (0, "ok\n")


# Run confined: the kernel's keyrings (shared with the user's session) and the ioctl that
# pushes bytes into a terminal's input, each answered by the filter's own errno (EACCES), not
# the kernel's (the keyring's id; ENOTTY for a pipe, which is no terminal: no new terminal
# can be opened in the sandbox, and none of pleat's is inherited).
PROBE_KERNEL = """
import ctypes, errno, fcntl, os, platform, termios
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]
said = []
libc.syscall(KEYCTL, 0, -3, 0, 0, 0)  # KEYCTL_GET_KEYRING_ID of the session keyring
said.append(errno.errorcode.get(ctypes.get_errno(), "done"))
try:
    fcntl.ioctl(os.pipe()[0], termios.TIOCSTI, b"x")
    said.append("done")
except OSError as error:
    said.append(errno.errorcode[error.errno])
print(" ".join(said))
"""


@needs_sandbox
def test_keyrings_and_terminal_input_are_refused(tmp_path: Path) -> None:
    done = launch(spec([str(tmp_path)]), sys.executable, "-c", PROBE_KERNEL)
    assert (done.returncode, done.stdout, done.stderr) == (0, "EACCES EACCES\n", "")


@needs_sandbox
def test_the_command_ends_the_launcher_as_it_ended(tmp_path: Path) -> None:
    """Through the PID namespace's init: the command's exit code, or the signal that ended it
    (SIGKILL included, which takes no handler), is the launcher's."""
    pids = spec([str(tmp_path)], pids=True)
    for line, code in (("exit 3", 3), ("kill -9 $$", -9), ("kill -TERM $$", -15)):
        done = launch(pids, "sh", "-c", line)
        assert (done.returncode, done.stderr) == (code, "")
    assert launch(pids, "sh", "-c", "echo $$").stdout == "2\n"  # the init is 1
