"""Sessions under attack, as a user meets them: invalid text from the model, a journal that
cannot be written, hostile ids and homes, damaged sessions beside good ones."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.pleat_process import PLEAT, RUN_TIMEOUT_SECONDS, process_environment
from tests.support.pleat_process import pleat as in_process
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (pleat's headless runs; the disk-full one as a process): left out of the fast set.
pytestmark = pytest.mark.slow

# Bytes any file pleat writes may reach in the disk-full test: the journal's header, system
# prompt and the user's message fit; the model's long answer does not.
FILE_SIZE_LIMIT = 6_000


def pleat(
    workspace: Path, *args: str, limit_files: bool = False, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`pleat ARGS --cwd WORKSPACE` (with `home` as PLEAT_HOME), in process; with `limit_files`
    a real process whose files cannot grow past FILE_SIZE_LIMIT (a disk that is full)."""
    env = None if home is None else {"PLEAT_HOME": str(home)}
    if not limit_files:
        return in_process(*args, "--cwd", str(workspace), env=env)

    def limit() -> None:  # in the child: writes past the limit fail with EFBIG, even for root
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))

    return subprocess.run(
        [*PLEAT, *args, "--cwd", str(workspace)],
        env=process_environment(env),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
        preexec_fn=limit,
    )


def model_args(server: ScriptedServer) -> list[str]:
    return ["--model", TEST_MODEL, "--api-base", server.base_url, "--api-key", TEST_API_KEY]


def journal_records(pleat_home: Path) -> list[dict[str, Any]]:
    (journal,) = pleat_home.glob("sessions/*/journal.jsonl")
    return [json.loads(line) for line in journal.read_text().splitlines()]


def test_a_lone_surrogate_from_the_model_is_replaced_and_nothing_is_lost(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    """A reply holding `\\ud800` (valid JSON) in its text and in a tool call's arguments, raw
    in the path and escaped in the content: both become U+FFFD when the reply is assembled, so
    the next request of the same turn, and of a --continue, can be sent."""
    arguments = '{"path": "notes\ud800.txt", "content": "x \\ud800 y"}'
    server.push(
        ToolCalls([("write_file", arguments)], text="before \ud800 after"),
        Text("written"),
        Text("second answer"),
    )
    first = pleat(workspace, *model_args(server), "--yes", "-p", "hello")
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("\n") == 1, first.stderr  # the call's line, no litellm traceback
    assert "before \ufffd after" in first.stdout and "written" in first.stdout
    assert (workspace / "notes\ufffd.txt").read_text() == "x \ufffd y"
    again = pleat(workspace, *model_args(server), "--continue", "-p", "and?")
    assert again.returncode == 0, again.stderr
    assert "second answer" in again.stdout
    assert len(server.requests) == 3
    for request in server.requests:  # as the server read it: a lone surrogate does not encode
        json.dumps(request.body, ensure_ascii=False).encode("utf-8")
    sent = server.requests[-1].messages
    assert [m["role"] for m in sent[-5:]] == ["user", "assistant", "tool", "assistant", "user"]
    reply = sent[-4]
    assert reply["content"] == "before \ufffd after"
    (call,) = reply["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {
        "path": "notes\ufffd.txt",
        "content": "x \ufffd y",
    }
    records = [r for r in journal_records(pleat_home) if r.get("type") == "message"]
    assert not any("replaced_characters" in r for r in records)  # nothing left to replace


def test_a_journal_that_cannot_be_written_stops_the_turn(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    server.push(Text("a long answer " * 1_000))
    done = pleat(workspace, *model_args(server), "-p", "hello", limit_files=True)
    assert done.returncode != 0
    (line,) = [line for line in done.stderr.splitlines() if "journal" in line]
    assert line.startswith("pleat: error: cannot write the session journal")
    assert "File too large" in line and "Traceback" not in done.stderr


@pytest.mark.parametrize("wanted", ["../x", "/etc", "a/b", "x" * 5_000])
def test_a_hostile_session_id_is_one_line(workspace: Path, wanted: str) -> None:
    done = pleat(workspace, "--model", TEST_MODEL, "--resume", wanted, "-p", "hi")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "is not a session id" in done.stderr
    assert len(done.stderr) < 300


def test_a_pleat_home_that_is_a_file_is_one_line(tmp_path: Path, workspace: Path) -> None:
    home = tmp_path / "file"
    home.write_text("x")
    done = pleat(workspace, "--model", TEST_MODEL, "-p", "hi", home=home)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("pleat: error: cannot use the session directory")
    assert done.stderr.count("\n") == 1


def test_damaged_sessions_do_not_break_the_listing_or_continue(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    server.push(Text("first answer"), Text("second answer"))
    assert pleat(workspace, *model_args(server), "-p", "hello").returncode == 0
    for name, data in [("20990101-000000-aaaaa1", b"\x00\xff"), ("20990101-000000-aaaaa2", b"[1]")]:
        (pleat_home / "sessions" / name).mkdir()
        (pleat_home / "sessions" / name / "journal.jsonl").write_bytes(data)
    listed = pleat(workspace, "sessions")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count("[damaged: its first line is not a session header]") == 2
    again = pleat(workspace, *model_args(server), "--continue", "-p", "again")
    assert again.returncode == 0, again.stderr
    assert "second answer" in again.stdout
