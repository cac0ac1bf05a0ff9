"""`--add-dir` headless against the scripted server (the entry point in process): the model reads
and writes a directory outside the workspace, nothing beside it; /undo takes its writes back;
its sandboxed commands write there and nowhere else outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.hook_support import tool_results
from tests.support.pleat_process import run_pleat
from tests.support.sandbox_support import needs_sandbox
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """The added directory, beside the workspace, holding one file."""
    place = tmp_path / "other"
    place.mkdir()
    (place / "notes.txt").write_text("shared notes\n")
    return place.resolve()


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file beside both, in neither."""
    path = tmp_path / "secret.txt"
    path.write_text("top secret\n")
    return path


def test_the_model_reads_and_writes_an_added_directory_and_nothing_beside_it(
    server: ScriptedServer, workspace: Path, other: Path, secret: Path
) -> None:
    server.push(
        ToolCalls(
            [
                ("read_file", {"path": str(other / "notes.txt")}),
                ("write_file", {"path": str(other / "made" / "x.txt"), "content": "made\n"}),
                ("read_file", {"path": str(secret)}),
                ("write_file", {"path": str(secret), "content": "gone\n"}),
            ]
        ),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "work", "--add-dir", str(other))
    assert done.returncode == 0, done.stderr
    assert (other / "made" / "x.txt").read_text() == "made\n"
    assert secret.read_text() == "top secret\n"
    read, written, refused_read, refused_write = tool_results(server, 1)
    assert read == "     1\tshared notes"
    assert written == f"created {other}/made/x.txt (1 lines, 5 bytes)"
    for refused in (refused_read, refused_write):
        assert f"is outside the workspace ({workspace.resolve()}) and the added directories " in (
            refused
        )
    assert "top secret" not in str(server.requests[1].messages)
    # The model was told, with the prompt, which directories it has.
    note = server.requests[0].messages[-1]["content"]
    assert "[pleat: added directories]" in note and f"- {other}" in note

    # /undo (the same directory added) takes the write back, the directory made for it too.
    undone = run_pleat(workspace, server, "-p", "/undo", "--continue", "--add-dir", str(other))
    assert undone.returncode == 0, undone.stderr
    assert f"removed {other}/made/x.txt" in undone.stdout.splitlines()
    assert not (other / "made").exists()
    assert (other / "notes.txt").read_text() == "shared notes\n"


def test_a_bad_added_directory_is_named_and_the_run_goes_on(
    server: ScriptedServer, workspace: Path, tmp_path: Path, other: Path
) -> None:
    server.push(Text("hi"))
    missing = tmp_path / "missing"
    done = run_pleat(
        workspace, server, "-p", "hi", "--add-dir", str(missing), "--add-dir", str(other)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hi"
    assert f"pleat: note: added directory '{missing}': not found; not added" in done.stderr
    told = server.requests[0].messages[-1]["content"]  # the prompt, then the note
    assert told.startswith("hi\n\n[pleat: added directories]")
    assert f"- {other}" in told and str(missing) not in told


@needs_sandbox
def test_a_sandboxed_command_writes_the_added_directory_and_nowhere_else_outside(
    server: ScriptedServer, workspace: Path, other: Path, tmp_path: Path
) -> None:
    beside = tmp_path / "beside"
    beside.mkdir()
    server.push(
        ToolCalls([("run_command", {"command": f"echo in > {other}/cmd.txt"})]),
        ToolCalls([("run_command", {"command": f"echo out > {beside}/cmd.txt"})]),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "work", "--add-dir", str(other))
    assert done.returncode == 0, done.stderr
    assert (other / "cmd.txt").read_text() == "in\n"
    assert not (beside / "cmd.txt").exists()
    (refused,) = tool_results(server, 2)[1:]
    assert "Permission denied" in refused or "sandbox" in refused
    shown = run_pleat(workspace, server, "-p", "/sandbox", "--add-dir", str(other))
    assert f"commands may change: {workspace.resolve()}, {other}, " in shown.stdout
