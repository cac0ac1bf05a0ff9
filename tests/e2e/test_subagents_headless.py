"""Sub-agents headless (the entry point in process): /undo of the parent's turn takes back what its
sub-agents changed, `pleat sessions` lists them under their parent, --continue never picks one."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.headless.exit_codes import EXIT_OK
from tests.support.git_support import git_repo
from tests.support.pleat_process import pleat, run_pleat
from tests.support.scripted_server import Reply, ScriptedServer, Text, ToolCalls
from tests.support.subagent_support import Meeting, is_subagent

# Slow (pleat's headless runs): left out of the fast set.
pytestmark = pytest.mark.slow

OLD_NOTES = b"the notes as the user wrote them\n"
# Tenths of a second each command waits for the other's to start: run at once (as before pleat
# kept commands of sub-agents apart) the other starts within a second or two on a loaded
# machine; one after the other, the first waits this long in vain, then goes on.
COMMAND_WAIT_TENTHS = 50


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == EXIT_OK, done.stderr
    return done


def sessions(workspace: Path) -> subprocess.CompletedProcess[str]:
    """`pleat sessions` in the workspace."""
    return pleat("sessions", "--cwd", str(workspace))


def two_writing_subagents(body: dict[str, Any]) -> Reply:
    """The parent hands out two tasks; one sub-agent writes a new file, the other edits one."""
    messages = body["messages"]
    if is_subagent(body):
        mine = str(messages[1]["content"])
        if len(messages) > 2:
            return Text(f"done: {mine}")
        if mine == "make":
            return ToolCalls([("write_file", {"path": "made/new.txt", "content": "new\n"})])
        edit = {"path": "notes.txt", "old_string": "as the user", "new_string": "as a sub"}
        return ToolCalls([("edit_file", edit)])
    if messages[-1]["role"] == "user" and messages[-1]["content"] == "change things":
        return ToolCalls(
            [
                ("task", {"description": "make a file", "prompt": "make"}),
                ("task", {"description": "edit the notes", "prompt": "edit"}),
            ]
        )
    return Text("both changed")


def test_undo_of_the_parents_turn_takes_back_what_its_subagents_changed(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_bytes(OLD_NOTES)
    server.fallback = two_writing_subagents
    done = ok(run_pleat(workspace, server, "-p", "change things"))
    assert done.stdout.strip() == "both changed"
    assert "↳ (make a file) write_file" in done.stderr  # what the sub-agents do, on stderr
    assert (workspace / "made" / "new.txt").read_text() == "new\n"
    assert (workspace / "notes.txt").read_bytes() != OLD_NOTES

    listing = ok(sessions(workspace)).stdout.splitlines()
    parent_row = next(i for i, row in enumerate(listing) if "change things" in row)
    children = listing[parent_row + 1 : parent_row + 3]
    assert all(row.startswith("  ↳ ") and "[sub-agent] " in row for row in children)
    assert {row.split("] ")[-1].strip() for row in children} == {"make", "edit"}

    undone = ok(run_pleat(workspace, server, "-p", "/undo", "--continue"))  # the parent's
    assert undone.stdout.startswith("undid turn 1: change things"), undone.stdout
    assert (workspace / "notes.txt").read_bytes() == OLD_NOTES
    assert not (workspace / "made").exists()  # the directory the write made goes too


def meeting_command(mine: str, other: str) -> str:
    """Mark that this command started, wait (bounded) for the other's mark, then write
    `mine`.txt saying whether they met: run side by side, each one's checkpoint bracket holds
    the other's changes."""
    return (
        f"echo started > {mine}.started; i=0; "
        f"while [ ! -e {other}.started ] && [ $i -lt {COMMAND_WAIT_TENTHS} ]; "
        "do sleep 0.1; i=$((i+1)); done; "
        f"if [ -e {other}.started ]; then echo met > {mine}.txt; else echo alone > {mine}.txt; fi"
    )


class TwoCommandingSubagents:
    """The parent hands out two tasks in one reply; each sub-agent's first request waits until
    the other's has arrived (so they run side by side), then runs its command and answers."""

    def __init__(self) -> None:
        self.meeting = Meeting()

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        if not is_subagent(body):
            if messages[-1]["role"] == "user":
                return ToolCalls(
                    [
                        ("task", {"description": "run a", "prompt": "a"}),
                        ("task", {"description": "run b", "prompt": "b"}),
                    ]
                )
            return Text("both ran")
        mine = str(messages[1]["content"])
        if len(messages) > 2:
            return Text(f"ran {mine}")
        self.meeting.wait()
        other = "b" if mine == "a" else "a"
        return ToolCalls([("run_command", {"command": meeting_command(mine, other)})])


def test_undo_takes_back_the_commands_of_subagents_that_ran_side_by_side(
    server: ScriptedServer, workspace: Path, no_git_above: None
) -> None:
    """Two sub-agents at work at once each run a command in a git workspace: their commands
    run one after the other (each checkpoint bracket holds its own command's changes alone),
    so /undo of the parent's turn takes back all of them and exits 0."""
    git_repo(workspace, {"keep.txt": b"kept\n"})
    model = TwoCommandingSubagents()
    server.fallback = model
    done = ok(run_pleat(workspace, server, "-p", "run both"))
    assert not model.meeting.missed, "the sub-agents did not run side by side"
    assert done.stdout.strip() == "both ran"
    said = sorted((workspace / f"{name}.txt").read_text().strip() for name in "ab")
    assert said == ["alone", "met"]  # the second command started after the first had ended

    undone = ok(run_pleat(workspace, server, "-p", "/undo", "--continue"))
    assert undone.stdout.startswith("undid turn 1: run both"), undone.stdout
    assert sorted(p.name for p in workspace.iterdir()) == [".git", "keep.txt"]
    assert (workspace / "keep.txt").read_text() == "kept\n"
