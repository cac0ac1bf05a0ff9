"""Real processes: pleat killed with SIGKILL at random moments of a long run, again and again,
and at a named compaction step; every time the session resumes with nothing completed lost.
Also: two processes on one session, and the reader tool answering from folded messages. The
runs that are not killed (a resumed session finishing the job, the first of two pleats) call
the entry point in process."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sessions.journal import JOURNAL_NAME
from sessions.paths import session_dir
from sessions.store import Session, list_sessions
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.invariants import assert_history_valid
from tests.support.pleat_process import pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

FILES = 40
INSTRUCTION_MARK = "[pleat: context compaction"
SUMMARY = (
    "<topics>files</topics><continues_previous>true</continues_previous><summary>reading</summary>"
)

# Slow (real processes killed and resumed): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow
# Seconds after a run's first model request at which it is killed: within them it streams,
# runs tools, writes the journal and compacts several times.
KILL_AFTER = (0.0, 2.5)
ROUNDS = 3


def run_args(server: ScriptedServer, workspace: Path, *extra: str) -> list[str]:
    return [
        "--model", TEST_MODEL, "--api-base", server.base_url, "--api-key", TEST_API_KEY,
        "--cwd", str(workspace), "--yes", "--context-window", "6000", *extra,
    ]  # fmt: skip


def pleat_args(server: ScriptedServer, workspace: Path, *extra: str) -> list[str]:
    """The command that starts pleat as a process for run_args."""
    return [sys.executable, "-m", "tui.main", *run_args(server, workspace, *extra)]


def reader_model() -> Any:
    """Reads f00..f39 one call at a time (a counter shared by every run), then answers."""
    reads = iter(range(FILES))

    def model(body: dict[str, Any]) -> Text | ToolCalls:
        if INSTRUCTION_MARK in str(body["messages"][-1]["content"]):
            return Text(SUMMARY)
        time.sleep(0.05)  # a little latency, so kills land in every phase
        i = next(reads, None)
        if i is None:
            return Text("all files read")
        return ToolCalls([("read_file", {"path": f"f{i:02d}.txt"})])

    return model


def journaled_ids(directory: Path) -> set[str]:
    """Ids of every conversation message the journal holds in a complete line (summaries are
    pleat's own and are replaced by the next fold's)."""
    ids: set[str] = set()
    for line in (directory / JOURNAL_NAME).read_text(errors="replace").split("\n"):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("type") == "message":
            messages = [record["message"]]
        elif record.get("type") == "compaction":
            messages = record["history"]
        else:
            continue
        ids.update(m["id"] for m in messages if (m.get("meta") or {}).get("kind") != "summary")
    return ids


def check_resumes(session_id: str, completed: set[str]) -> list[str]:
    """Resume (in this process), check the invariants, return the repair notes."""
    session, history, notes = Session.resume(session_id)
    try:
        assert_history_valid(history)
        archive = session.archive
        stored = [
            m.id for c in archive.chunks() for part in archive.read_parts(c.number) for m in part
        ]
        assert len(stored) == len(set(stored)), "a message archived twice"
        live = {m.id for m in history}
        lost = completed - live - set(stored)
        assert not lost, f"completed messages lost: {sorted(lost)[:5]}"
    finally:
        session.close()
    return notes


def test_sigkill_at_random_moments_never_breaks_a_session(
    server: ScriptedServer, workspace: Path
) -> None:
    for i in range(FILES):
        (workspace / f"f{i:02d}.txt").write_text(f"file {i}\n" + f"line of file {i}\n" * 120)
    server.fallback = reader_model()
    rng = random.Random(20261121)
    session_id: str | None = None
    for round_ in range(ROUNDS):
        extra = ["--continue"] if session_id else []
        process = subprocess.Popen(
            pleat_args(server, workspace, "-p", "read every file, one at a time", *extra),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        started = len(server.requests)
        deadline = time.monotonic() + 60
        while len(server.requests) == started and time.monotonic() < deadline:
            time.sleep(0.01)  # pleat is up (litellm imported, session open) once it asks
        time.sleep(rng.uniform(*KILL_AFTER))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        found = list_sessions(workspace)
        assert found, process.stderr.read() if process.stderr else ""
        session_id = found[0].id
        completed = journaled_ids(session_dir(session_id))
        check_resumes(session_id, completed)
        assert len(list_sessions(workspace)) == 1, f"round {round_} started a new session"
    # And the session, resumed once more, finishes the job.
    done = pleat(*run_args(server, workspace, "-p", "go on", "--continue"))
    assert done.returncode == 0, done.stderr
    assert "all files read" in done.stdout


def test_sigkill_between_chunk_write_and_history_swap(
    server: ScriptedServer, workspace: Path
) -> None:
    for i in range(FILES):
        (workspace / f"f{i:02d}.txt").write_text(f"file {i}\n" + f"line of file {i}\n" * 120)
    server.fallback = reader_model()
    killed = subprocess.run(
        pleat_args(server, workspace, "-p", "read every file"),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PLEAT_CRASH_AT": "archived"},
    )
    assert killed.returncode == -signal.SIGKILL
    session_id = list_sessions(workspace)[0].id
    chunk_files = list((session_dir(session_id) / "chunks").glob("chunk-*.md"))
    assert chunk_files, "the crash should have come after a chunk was written"
    completed = journaled_ids(session_dir(session_id))
    notes = check_resumes(session_id, completed)
    # The unrecorded chunk was set aside, not adopted twice.
    assert any("never recorded: set aside" in note for note in notes), notes
    assert list((session_dir(session_id) / "chunks").glob(".unrecorded-chunk-*.md"))
    done = pleat(*run_args(server, workspace, "-p", "go on", "--continue"))
    assert done.returncode == 0, done.stderr
    assert "all files read" in done.stdout


def test_two_processes_on_one_session(server: ScriptedServer, workspace: Path) -> None:
    server.push(Text("first"))
    first = pleat(*run_args(server, workspace, "-p", "hello"))
    assert first.returncode == 0, first.stderr
    session_id = list_sessions(workspace)[0].id
    holder, _, _ = Session.resume(session_id)  # another pleat has it open
    try:
        second = subprocess.run(
            pleat_args(server, workspace, "-p", "hello again", "--resume", session_id),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        holder.close()
    assert second.returncode == 2
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and "is open in another pleat" in lines[0]


def test_the_reader_tool_recalls_folded_text(server: ScriptedServer, workspace: Path) -> None:
    """Done-when of the sessions issue: after a long compacted session, a question whose
    answer is only in folded messages makes the model call read_archive, which returns the
    exact archived text."""
    for i in range(FILES):
        (workspace / f"f{i:02d}.txt").write_text(f"file {i}\n" + f"line of file {i}\n" * 120)
    (workspace / "f03.txt").write_text("the launch code is 7-ALPHA-7731\n" + "padding\n" * 300)
    server.fallback = reader_model()
    first = pleat(*run_args(server, workspace, "-p", "read every file"))
    assert first.returncode == 0, first.stderr
    assert "folded" in first.stderr
    session_id = list_sessions(workspace)[0].id
    holder, history, _ = Session.resume(session_id)
    holder.close()
    assert "7-ALPHA-7731" not in json.dumps([m.to_record() for m in history]), "should be folded"

    def recall(body: dict[str, Any]) -> Text | ToolCalls:
        """Search the archive, read the message the hit names, answer from its exact text."""
        last = body["messages"][-1]
        if last["role"] == "user":
            return ToolCalls([("read_archive", {"action": "search", "query": "launch code"})])
        if "hit for" in last["content"]:
            message_id = re.search(r"chunk \d+ · (m\d+)", last["content"]).group(1)
            return ToolCalls([("read_archive", {"action": "read", "id": message_id})])
        code = re.search(r"launch code is (\S+)", last["content"]).group(1)
        return Text(f"The launch code was {code}.")

    server.fallback = recall
    done = pleat(
        *run_args(server, workspace, "-p", "what was the launch code in f03.txt?", "--continue")
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The launch code was 7-ALPHA-7731."
    read = server.requests[-1].messages[-1]
    assert read["role"] == "tool"
    assert "     1\tthe launch code is 7-ALPHA-7731\n" in read["content"]  # verbatim, as read
