"""/undo of a command's changes at the edges, headless (the entry point in process) in real git
repos: a directory a command turned into a file (and the reverse) comes back whole; an undo that
kept the user's version reports a success in JSON; files whose names hold a newline are undone
too; file modes come back, and directories a command made go once empty."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from agent.headless.exit_codes import EXIT_KEPT, EXIT_OK
from tests.support.git_support import git, git_repo
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (pleat's headless runs): left out of the fast set.
pytestmark = pytest.mark.slow


def command_then_undo(
    server: ScriptedServer, workspace: Path, command: str
) -> subprocess.CompletedProcess[str]:
    """Run `command` as the model's one tool call, then /undo it; the undo's process."""
    server.push(ToolCalls([("run_command", {"command": command})]), Text("ran it"))
    ran = run_pleat(workspace, server, "-p", "run it")
    assert ran.returncode == EXIT_OK, ran.stderr
    return run_pleat(workspace, server, "-p", "/undo", "--continue")


def test_a_directory_swapped_for_a_file_and_back_is_restored_whole(
    server: ScriptedServer, workspace: Path, no_git_above: None
) -> None:
    """`notes/` (an untracked file in it) became a file, the file `cfg` became a directory: the
    undo removes what the command made in the way, then puts the old tree back."""
    git_repo(workspace)
    (workspace / "notes").mkdir()
    (workspace / "notes" / "todo.txt").write_text("MY UNTRACKED NOTES\n")
    (workspace / "cfg").write_text("cfg file\n")
    command = "rm -rf notes && echo oops > notes; rm cfg && mkdir -p cfg/deep && echo x > cfg/in"
    done = command_then_undo(server, workspace, command)

    assert done.returncode == EXIT_OK, done.stderr
    assert (workspace / "notes" / "todo.txt").read_text() == "MY UNTRACKED NOTES\n"
    assert (workspace / "cfg").read_text() == "cfg file\n"
    assert sorted(done.stdout.splitlines()[1:]) == [
        "removed cfg/in",
        "removed notes",
        "restored cfg",
        "restored notes/todo.txt",
    ]
    assert "kept your version" not in done.stderr and "not restored" not in done.stderr


def test_a_directory_holding_the_users_file_where_a_file_was_is_left_alone(
    server: ScriptedServer, workspace: Path, no_git_above: None
) -> None:
    """The command turned `cfg` into a directory and the user put a file of theirs in it: the
    old `cfg` cannot come back without losing it, so nothing of theirs goes and the undo says
    so."""
    git_repo(workspace)
    (workspace / "cfg").write_text("cfg file\n")
    server.push(ToolCalls([("run_command", {"command": "rm cfg && mkdir cfg"})]), Text("ran"))
    assert run_pleat(workspace, server, "-p", "run it").returncode == EXIT_OK
    (workspace / "cfg" / "mine.txt").write_text("the user's\n")

    done = run_pleat(workspace, server, "-p", "/undo", "--continue")
    assert (workspace / "cfg" / "mine.txt").read_text() == "the user's\n"
    assert "pleat: not restored: cfg: cannot restore cfg: a directory holding other files" in (
        done.stderr
    )


def test_an_undo_that_kept_the_users_file_is_a_success_in_json(
    server: ScriptedServer, workspace: Path
) -> None:
    """The undo was done (exit 4 says some files were kept): the JSON result is no error, and
    its text says what went back and what was kept."""
    server.push(
        ToolCalls(
            [
                ("write_file", {"path": "a.txt", "content": "pleat's\n"}),
                ("write_file", {"path": "b.txt", "content": "pleat's too\n"}),
            ]
        ),
        Text("wrote them"),
    )
    assert run_pleat(workspace, server, "-p", "write").returncode == EXIT_OK
    (workspace / "a.txt").write_text("the user's\n")

    done = run_pleat(workspace, server, "-p", "/undo", "--continue", "--output-format", "json")
    assert done.returncode == EXIT_KEPT, done.stderr
    result = json.loads(done.stdout)
    assert result["type"] == "result" and result["subtype"] == "success"
    assert result["is_error"] is False
    assert result["result"].splitlines() == [
        "undid turn 1: write",
        "removed b.txt",
        "kept your version of a.txt: it changed after pleat wrote it",
    ]
    assert (workspace / "a.txt").read_text() == "the user's\n"
    assert not (workspace / "b.txt").exists()


def test_files_whose_names_hold_a_newline_are_undone_and_named_on_one_line(
    server: ScriptedServer, workspace: Path, no_git_above: None
) -> None:
    git_repo(workspace)
    (workspace / "nl\nname.txt").write_text("orig\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-qm", "a name with a newline")
    command = (
        "printf 'changed\\n' > \"$(printf 'nl\\nname.txt')\"; echo new > \"$(printf 'new\\nfile')\""
    )
    done = command_then_undo(server, workspace, command)

    assert done.returncode == EXIT_OK, done.stderr
    assert (workspace / "nl\nname.txt").read_text() == "orig\n"
    assert not (workspace / "new\nfile").exists()
    assert done.stdout.splitlines()[1:] == ["restored nl\\nname.txt", "removed new\\nfile"]


def test_modes_come_back_and_directories_a_command_made_go(
    server: ScriptedServer, workspace: Path, no_git_above: None
) -> None:
    git_repo(workspace)
    (workspace / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (workspace / "tool.sh").write_text("#!/bin/sh\n")
    os.chmod(workspace / "tool.sh", 0o755)
    (workspace / "d").mkdir()
    (workspace / "d" / "kept.txt").write_text("kept\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-qm", "scripts")
    command = (
        "chmod +x run.sh; chmod -x tool.sh; mkdir -p nd/sub && echo n > nd/sub/f.txt; "
        "echo n > d/new.txt"
    )
    done = command_then_undo(server, workspace, command)

    assert done.returncode == EXIT_OK, done.stderr
    assert stat.S_IMODE((workspace / "run.sh").stat().st_mode) & 0o111 == 0
    assert stat.S_IMODE((workspace / "tool.sh").stat().st_mode) & 0o111 == 0o111
    assert not (workspace / "nd").exists(), "the directories the command made stay"
    assert sorted(p.name for p in (workspace / "d").iterdir()) == ["kept.txt"]
    assert sorted(done.stdout.splitlines()[1:]) == [
        "removed d/new.txt",
        "removed nd/sub/f.txt",
        "restored run.sh",
        "restored tool.sh",
    ]
    assert git(workspace, "status", "--porcelain") == ""
