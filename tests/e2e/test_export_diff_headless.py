"""/export and /diff headless (the entry point in process) against the scripted server: the
export holds a folded turn's words, taken from the archive and marked folded, never overwrites a
file, and works in --output-format json; /diff prints the session's changes without a request
to the server; `--resume` without an id is refused headless."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.conversation.session_diff import NO_CHANGES
from agent.headless.exit_codes import EXIT_CONFIG, EXIT_OK
from tests.support.git_support import git_repo
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import Reply, ScriptedServer, Text, ToolCalls
from tests.support.tui_support import is_compression, summary_reply

# Slow (pleat's headless runs, folds): left out of the fast set.
pytestmark = pytest.mark.slow

# A fold that keeps only the last message: the turns before it are folded.
SMALL_TAIL = ("--compaction", "tail_messages=1")


def scripted(server: ScriptedServer, *replies: Reply) -> None:
    """The model answers with `replies` in order; compression requests get a summary."""
    queue = list(replies)

    def respond(body: dict[str, Any]) -> Reply:
        if is_compression(body):
            return summary_reply("birds", "talked about a bird")
        return queue.pop(0) if queue else Text("ok")

    server.fallback = respond


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == EXIT_OK, done.stderr
    return done


def test_export_holds_a_folded_turn_marked_folded_and_never_overwrites(
    server: ScriptedServer, workspace: Path
) -> None:
    scripted(server, Text("the pelican is noted"), Text("the heron too"))
    ok(run_pleat(workspace, server, "-p", "remember the pelican"))
    ok(run_pleat(workspace, server, "-p", "/compact", "--continue", *SMALL_TAIL))
    ok(run_pleat(workspace, server, "-p", "and the heron", "--continue"))
    asked = len(server.requests)

    done = ok(run_pleat(workspace, server, "-p", "/export", "--continue"))
    assert len(server.requests) == asked, "/export called the model"
    (written,) = workspace.glob("*.md")
    assert written.name.endswith("-remember-the-pelican.md")
    assert str(written) in done.stdout and "folded" in done.stdout
    text = written.read_text()
    folded_part, live_part = text.split("## In the live context")
    assert "## Folded into chunk 1 · birds" in folded_part
    assert "### User (folded)\n\nremember the pelican" in folded_part
    # The fold kept the last message (the answer) in the live context, and so does the export.
    assert "### Assistant\n\nthe pelican is noted" in live_part
    assert "talked about a bird" not in text, "the summary is pleat's, not the conversation"
    assert "### User\n\nand the heron" in live_part and "the heron too" in live_part

    # A named file, in json: the result says where; the same name again is refused, untouched.
    done = ok(
        run_pleat(
            workspace, server, "-p", "/export talk.md", "--continue", "--output-format", "json"
        )
    )
    result = json.loads(done.stdout)
    assert result["is_error"] is False and "talk.md" in result["result"]
    before = (workspace / "talk.md").read_text()
    assert "remember the pelican" in before
    refused = run_pleat(workspace, server, "-p", "/export talk.md", "--continue")
    assert refused.returncode == EXIT_CONFIG
    assert "talk.md exists: give another file name" in refused.stderr
    assert (workspace / "talk.md").read_text() == before


def test_diff_prints_the_sessions_changes_without_a_request(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("first line\nold line\n")
    scripted(
        server,
        ToolCalls(
            [
                ("edit_file", {"path": "notes.txt", "old_string": "old", "new_string": "new"}),
                ("write_file", {"path": "made.txt", "content": "made here\n"}),
            ]
        ),
        Text("done"),
    )
    ok(run_pleat(workspace, server, "-p", "change the notes"))
    asked = len(server.requests)
    done = ok(run_pleat(workspace, server, "-p", "/diff", "--continue"))
    assert len(server.requests) == asked, "/diff called the model"
    assert "--- /dev/null\n+++ b/made.txt\n" in done.stdout and "+made here" in done.stdout
    assert "--- a/notes.txt\n+++ b/notes.txt\n" in done.stdout
    assert "-old line\n+new line" in done.stdout

    # In json, the diff is the result; after /undo nothing is left to show.
    done = ok(run_pleat(workspace, server, "-p", "/diff", "--continue", "--output-format", "json"))
    assert "+made here" in json.loads(done.stdout)["result"]
    ok(run_pleat(workspace, server, "-p", "/undo", "--continue"))
    done = ok(run_pleat(workspace, server, "-p", "/diff", "--continue"))
    assert done.stdout.strip() == NO_CHANGES
    assert len(server.requests) == asked


def test_diff_shows_what_a_command_changed_in_git_and_a_binary_file(
    server: ScriptedServer, workspace: Path
) -> None:
    git_repo(workspace, {"tracked.txt": b"one\n", "data.bin": b"\0\1\2"})
    command = "echo two >> tracked.txt && printf '\\003' >> data.bin"
    scripted(server, ToolCalls([("run_command", {"command": command})]), Text("ran it"))
    ok(run_pleat(workspace, server, "-p", "append a line"))
    assert (workspace / "tracked.txt").read_text() == "one\ntwo\n"
    done = ok(run_pleat(workspace, server, "-p", "/diff", "--continue"))
    assert "--- a/tracked.txt\n+++ b/tracked.txt\n" in done.stdout
    assert " one\n+two\n" in done.stdout
    assert "Binary file data.bin changed" in done.stdout
    assert len(server.requests) == 2


def test_resume_without_an_id_is_refused_headless(server: ScriptedServer, workspace: Path) -> None:
    refused = run_pleat(workspace, server, "-p", "hello", "--resume")
    assert refused.returncode == 2
    assert "--resume needs an ID with -p" in refused.stderr
    assert not server.requests
