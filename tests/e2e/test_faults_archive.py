"""Fault matrix, archive rows: the chunk write fails (no directory, disk full) mid-compaction."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from typing import Any

import pytest

import sessions.atomic
from agent.events import CompactionDone, CompactionFailed, CompactionStarted, ErrorEvent, TurnDone
from agent.turn.loop import Agent
from sessions.messages import Message, ToolCall
from sessions.store import Session
from tests.support.faults_harness import assert_survives, open_agent, records, turn
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text

INSTRUCTION_MARK = "[pleat: context compaction"
# Earlier exchanges put in the history before the faulty fold: with the words below, about
# 10k tokens, past the 9.6k trigger of the harness's 16k window (80% of 16k - 4k reserved),
# and with room beside the tool schemas (a few hundred tokens more of them still fit) for the
# fold's head to go in one compression call.
FILL_TURNS = 10
WORDS_PER_RESULT = 230
# Bytes the "disk" takes before it is full: enough for the front matter and part of the first
# message, so the failure lands mid-chunk and a partial temp file exists for a moment.
DISK_ROOM_BYTES = 1_000
# How a compression call that folds one part of a head too big for one call starts.
PART = re.compile(r"\[pleat: part (\d+) of (\d+) of the conversation being folded")


def summary(continues: bool) -> str:
    flag = "true" if continues else "false"
    return (
        f"<topics>reading the parts</topics><continues_previous>{flag}</continues_previous>"
        "<summary>## Task\nRead every part.\n## Done\nRead the parts so far.</summary>"
    )


def model(continues: bool) -> Any:
    """Summarizes when asked to compress; otherwise answers."""

    def reply(body: dict[str, Any]) -> Text:
        if INSTRUCTION_MARK in str(body["messages"][-1]["content"]):
            return Text(summary(continues))
        return Text("answered")

    return reply


def fill(agent: Agent, start: int = 0) -> None:
    """Earlier exchanges, each a request, a read_file call, its large result and an answer."""
    for t in range(start, start + FILL_TURNS):
        agent.add(Message(role="user", content=f"request {t}: read part {t}"))
        call = ToolCall(f"call_fill_{t}", "read_file", f'{{"path": "part{t}.txt"}}')
        agent.add(Message(role="assistant", content=None, tool_calls=(call,)))
        text = " ".join(f"part{t}-word{n}" for n in range(WORDS_PER_RESULT))
        agent.add(Message(role="tool", content=text, tool_call_id=call.id, name="read_file"))
        agent.add(Message(role="assistant", content=f"part {t} read"))


class FullDisk:
    """What sessions.atomic sees as `os`: the real module, except that os.write fails with
    ENOSPC once `room` bytes are written, after a short write, like a filling disk."""

    def __init__(self, room: int) -> None:
        self.room = room

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def write(self, fd: int, data: Any) -> int:
        if self.room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        count = os.write(fd, data[: self.room])
        self.room -= count
        return count


def chunk_dir_entries(agent: Agent) -> list[str]:
    assert agent.compactor is not None
    directory = agent.compactor.archive.directory
    return sorted(p.name for p in directory.iterdir()) if directory.is_dir() else []


async def fold_fails_and_turn_continues(server: ScriptedServer, agent: Agent, words: str) -> None:
    """Run a turn whose automatic fold fails at the chunk write; check the failure is one clear
    line, the history kept every message, and the turn answered."""
    before = records(agent.history)
    asked = len(server.requests)
    events = await turn(agent, "and the next part?")
    kinds = [type(e) for e in events if isinstance(e, CompactionStarted | CompactionFailed)]
    assert kinds == [CompactionStarted, CompactionFailed], events
    failed = next(e for e in events if isinstance(e, CompactionFailed))
    assert "\n" not in failed.message
    assert failed.message.startswith("compaction failed, history unchanged: cannot write the ")
    assert words in failed.message
    # Nothing folded: the old history, then this turn's request and answer.
    assert records(agent.history)[: len(before)] == before
    assert [m.role for m in agent.history[len(before) :]] == ["user", "assistant"]
    assert isinstance(events[-1], TurnDone) and events[-1].text == "answered"
    # One fold attempt, then the turn's own call: the failure does not loop. The attempt is one
    # compression call, or, when the head is too big for one beside the system prompt and the
    # tool schemas, one call per window-sized part of it, each part once.
    *folding, own = server.requests[asked:]
    assert own.messages[-1]["content"] == "and the next part?"
    parts = [PART.match(str(r.messages[-1]["content"])) for r in folding]
    if len(folding) > 1:
        assert [(p.group(1), p.group(2)) for p in parts if p] == [
            (str(n), str(len(folding))) for n in range(1, len(folding) + 1)
        ]
    assert folding
    assert_history_valid(agent.history)


async def test_chunks_directory_cannot_be_made(server: ScriptedServer, workspace: Path) -> None:
    session, agent = open_agent(server, workspace)
    server.fallback = model(continues=False)
    # Root ignores mode bits, so a read-only directory would not stop this process: a regular
    # file where the chunks directory belongs makes its mkdir fail for any user (EEXIST).
    blocker = session.directory / "chunks"
    blocker.write_text("not a directory\n")
    fill(agent)
    await fold_fails_and_turn_continues(server, agent, "a file is in the way of the directory")
    assert blocker.read_text() == "not a directory\n"
    # Once the obstacle is gone, folding works again in the same session.
    blocker.unlink()
    events = [e async for e in agent.compact()]
    assert isinstance(events[-1], CompactionDone) and events[-1].chunk == 1
    await assert_survives(server, session, agent)


@pytest.mark.parametrize("merge", [False, True], ids=["new-chunk", "merge-into-last"])
async def test_disk_full_during_the_chunk_write(
    server: ScriptedServer, workspace: Path, merge: bool
) -> None:
    session, agent = open_agent(server, workspace)
    server.fallback = model(continues=merge)
    assert agent.compactor is not None
    archive = agent.compactor.archive
    existing = b""
    if merge:  # a first fold succeeds; the failing one then rewrites its chunk to merge
        fill(agent)
        assert isinstance([e async for e in agent.compact()][-1], CompactionDone)
        existing = archive.path(1).read_bytes()
    fill(agent, start=FILL_TURNS)
    with pytest.MonkeyPatch.context() as fault:  # leaves conftest's PLEAT_HOME alone on exit
        fault.setattr(sessions.atomic, "os", FullDisk(DISK_ROOM_BYTES))
        await fold_fails_and_turn_continues(server, agent, "disk full")
    # No partial chunk visible and no temp file left; a chunk being merged into is intact.
    assert chunk_dir_entries(agent) == (["chunk-0001.md"] if merge else [])
    if merge:
        assert archive.path(1).read_bytes() == existing
    # Space is freed: the next fold succeeds.
    events = [e async for e in agent.compact()]
    assert isinstance(events[-1], CompactionDone) and events[-1].merged == merge
    await assert_survives(server, session, agent)


class _FullDisk:
    """Stands for the journal's file on a full disk: every write fails with ENOSPC after the
    first `room` bytes (a partial line is written, as a real short write would)."""

    def __init__(self, real: Any, room: int) -> None:
        self.real = real
        self.room = room

    def write(self, text: str) -> int:
        if len(text) > self.room:
            self.real.write(text[: self.room])
            self.room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(text)
        return self.real.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


async def test_journal_on_a_full_disk_stops_the_turn_and_recovers(
    server: ScriptedServer, workspace: Path
) -> None:
    """A journal write that fails (disk full) stops the turn with one clear error before any
    work goes unrecorded (the model is not called); once space is back the journal continues
    with a clean line and the session still resumes."""
    session, agent = open_agent(server, workspace)
    server.push(Text("first answer"))
    await turn(agent, "first question")
    journal = session.journal
    real = journal._file
    journal._file = _FullDisk(real, room=10)
    server.push(Text("second answer"))
    asked = len(server.requests)
    events = await turn(agent, "second question")
    problems = [e for e in events if isinstance(e, ErrorEvent) and e.kind == "journal"]
    assert len(problems) == 1 and "No space left on device" in problems[0].message
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "error"
    assert len(server.requests) == asked  # stopped before the model call
    assert_history_valid(agent.history)
    journal._file = real  # space is back
    events = await turn(agent, "third question")
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    assert events[-1].text == "second answer"
    session.close()
    resumed, history, notes = Session.resume(session.id)
    assert notes  # the damaged line is reported, not silently dropped
    assert_history_valid(history)
    assert history[-1].content == "second answer"
    resumed.close()
