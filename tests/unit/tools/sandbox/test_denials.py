"""What the model is told a failed command's output says the sandbox refused: paths outside the
places it may change (through a symlink too), a connection, a sandbox that could not start;
nothing for a refusal inside the workspace or an unrelated failure."""

from __future__ import annotations

from pathlib import Path

from tools.sandbox.denials import LINES_READ, denial_note, sandbox_cause
from tools.sandbox.launch import FAILURE_PREFIX
from tools.sandbox.policy import Sandbox, Support

SUPPORTED = Support(abi=7, namespaces=True)


def sandbox(workspace: Path, mode: str = "workspace-write", network: bool = False) -> Sandbox:
    return Sandbox(mode, workspace, network, SUPPORTED)  # type: ignore[arg-type]


def test_each_programs_way_of_naming_the_refused_path(workspace: Path, tmp_path: Path) -> None:
    box = sandbox(workspace)
    assert sandbox_cause("rm: cannot remove '/etc/hosts': Permission denied", box) == (
        "changing /etc/hosts (outside the workspace)"
    )
    assert sandbox_cause("mkdir: cannot create directory ‘/opt/x’: Permission denied", box) == (
        "changing /opt/x (outside the workspace)"
    )
    said = "PermissionError: [Errno 13] Permission denied: '/root/.ssh/config'"
    assert sandbox_cause(said, box) == "changing /root/.ssh/config (outside the workspace)"
    (workspace / "out").symlink_to(tmp_path)
    assert sandbox_cause("sh: 1: cannot create out/x: Permission denied", box) == (
        f"changing out/x -> {tmp_path}/x (outside the workspace)"
    )


def test_many_paths_are_cut_and_a_flood_of_lines_is_read_in_part(workspace: Path) -> None:
    lines = [f"rm: cannot remove '/usr/lib/f{n}': Permission denied" for n in range(10_000)]
    cause = sandbox_cause("\n".join(lines), sandbox(workspace))
    assert (
        cause == "changing /usr/lib/f0, /usr/lib/f1, /usr/lib/f2 and more (outside the workspace)"
    )
    assert LINES_READ < len(lines)


def test_a_refusal_inside_the_workspace_or_its_temp_is_not_the_sandboxs(workspace: Path) -> None:
    box = sandbox(workspace)
    assert sandbox_cause("cat: secret.txt: Permission denied", box) is None
    assert sandbox_cause(f"touch: cannot touch '{box.temp}/x': Permission denied", box) is None
    assert sandbox_cause("error: tests failed\nexit code: 1", box) is None


def test_read_only_mode_names_the_workspace_too(workspace: Path) -> None:
    said = "sh: 1: cannot create notes.txt: Read-only file system"
    assert sandbox_cause(said, sandbox(workspace, "read-only")) == (
        "changing notes.txt (read-only mode)"
    )


def test_a_closed_network_is_named_unless_the_network_was_open(workspace: Path) -> None:
    for said in (
        "curl: (6) Could not resolve host: pypi.org",
        "urllib.error.URLError: <urlopen error [Errno 101] Network is unreachable>",
    ):
        assert sandbox_cause(said, sandbox(workspace)) == (
            "a network connection or a Unix socket (the sandbox closes both)"
        ), said
        assert sandbox_cause(said, sandbox(workspace, network=True)) is None
        assert sandbox_cause(said, sandbox(workspace), network=True) is None
    # connect() refused by Landlock, or socket(AF_UNIX) by the filter: a Unix socket stays
    # closed with the network open.
    said = "PermissionError: [Errno 13] Permission denied"
    assert sandbox_cause(said, sandbox(workspace)) == (
        "a network connection or a Unix socket (the sandbox closes both)"
    )
    assert sandbox_cause(said, sandbox(workspace, network=True)) == (
        "a Unix socket (the sandbox closes them)"
    )


def test_a_sandbox_that_could_not_start_says_the_command_did_not_run(workspace: Path) -> None:
    said = f"{FAILURE_PREFIX}[Errno 1] unshare: Operation not permitted\n"
    assert sandbox_cause(said, sandbox(workspace)) == (
        "the sandbox could not be applied ([Errno 1] unshare: Operation not permitted), so the "
        "command did not run"
    )


def test_the_note_tells_the_model_how_to_ask_to_leave(workspace: Path) -> None:
    note = denial_note("changing /etc/hosts (outside the workspace)", sandbox(workspace))
    assert note == (
        "[pleat: the sandbox (workspace-write) seems to have refused changing /etc/hosts "
        "(outside the workspace). If the command must do that, call run_command again with "
        "no_sandbox: true; the user is asked first.]"
    )


def test_a_signal_to_a_process_outside_is_named(workspace: Path) -> None:
    said = "bash: line 1: kill: (30980) - Operation not permitted"
    assert sandbox_cause(said, sandbox(workspace)) == "a signal to a process outside the sandbox"
