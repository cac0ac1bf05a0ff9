"""Sub-agents headless, as real processes: /undo of the parent's turn takes back what its
sub-agents changed, `pleat sessions` lists them under their parent, --continue never picks one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pleat_process import RUN_TIMEOUT_SECONDS, run_pleat
from scripted_server import Reply, ScriptedServer, Text, ToolCalls

from agent.exit_codes import EXIT_OK
from agent.subagents import SUBAGENT_NOTE

# Slow (runs pleat as a process): left out of the fast set.
pytestmark = pytest.mark.slow

OLD_NOTES = b"the notes as the user wrote them\n"


def is_subagent(body: dict[str, Any]) -> bool:
    return SUBAGENT_NOTE in (body["messages"][0].get("content") or "")


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == EXIT_OK, done.stderr
    return done


def sessions(workspace: Path) -> subprocess.CompletedProcess[str]:
    """`pleat sessions` in the workspace."""
    return subprocess.run(
        [sys.executable, "-m", "tui.main", "sessions", "--cwd", str(workspace)],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
    )


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
