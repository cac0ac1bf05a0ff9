"""Folds nobody waits for: the compression call starts in the background past `early_fold_at` of
the threshold while the turn goes on, the ready summary is swapped in at the threshold with what
arrived meanwhile kept verbatim, and a fold whose conversation changed is never applied. The real
agent against the scripted server; a compression call is held until the test lets it answer, so
what overlaps what is decided by the test, never by the clock."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from agent.conversation.rewind import Rewinder
from agent.events import (
    CompactionDone,
    CompactionStarted,
    FoldDropped,
    ToolCallFinished,
    TurnDone,
)
from sessions.store import Session
from tests.support.compaction_agent import INSTRUCTION_MARK, is_compression, make_agent, run
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import Error, ScriptedServer, Text, ToolCalls

# A 32k window: a file read is ~1k tokens, so the threshold is a dozen reads away and the
# background fold has a few reads to run beside.
WINDOW = 32_000
# Seconds a held compression call waits for the test at most (a hang fails the test).
HOLD_SECONDS = 60.0


def summary(word: str) -> str:
    return (
        f"<topics>reading files</topics><continues_previous>false</continues_previous>"
        f"<summary>\n## Task\nRead every file. {word}\n</summary>"
    )


def write_files(workspace: Path, count: int) -> None:
    for i in range(count):
        lines = [
            f"file {i:02d} line {n:02d}: value {i * 7919 + n}, filler words" for n in range(70)
        ]
        (workspace / f"f{i:02d}.txt").write_text("\n".join(lines) + "\n")


class Provider:
    """The model: reads the files one by one, then answers; a compression call is held until
    the next ordinary request arrives (which lets it go), so that request is proof the turn
    went on while the fold was being made."""

    def __init__(self, reads: int, words: list[str], held: int | None = None) -> None:
        self.reads = iter(range(reads))
        self.words = iter(words)  # each compression's summary carries the next word
        # How many compression calls are held (the first ones; None: all). A fold the turn
        # waits for is never released by a next request: it must not be held.
        self.to_hold = held
        self.held: threading.Event | None = None
        self.order: list[str] = []  # "compression", "released", "answered" as they happened
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Text | ToolCalls | Error:
        if is_compression(body):
            gate = threading.Event()
            with self.lock:
                self.order.append("compression")
                hold = self.to_hold is None or self.to_hold > 0
                if self.to_hold is not None:
                    self.to_hold -= 1
                if hold:
                    self.held = gate
            if hold:
                gate.wait(HOLD_SECONDS)
            with self.lock:
                self.order.append("answered")
            word = next(self.words, "LATER")
            return Error(500, "no summary today") if word == "FAIL" else Text(summary(word))
        with self.lock:
            if self.held is not None:
                self.held.set()
                self.held = None
                self.order.append("released")
        i = next(self.reads, None)
        if i is None:
            return Text("All files are read.")
        return ToolCalls([("read_file", {"path": f"f{i:02d}.txt"})])


def started_in_background(events: list[Any]) -> list[int]:
    return [n for n, e in enumerate(events) if isinstance(e, CompactionStarted) and e.background]


async def test_the_turn_goes_on_while_the_fold_is_made_and_its_summary_is_swapped_in(
    server: ScriptedServer, workspace: Path
) -> None:
    write_files(workspace, 30)
    server.context_window = WINDOW
    provider = Provider(30, ["FIRST", "SECOND", "THIRD", "FOURTH"])
    server.fallback = provider
    agent = make_agent(server, workspace, context_window=WINDOW)
    events = await run(agent, "Read the thirty files f00.txt to f29.txt, one at a time.")

    done = events[-1]
    assert isinstance(done, TurnDone) and done.reason == "answer", events[-3:]
    starts = started_in_background(events)
    folds = [n for n, e in enumerate(events) if isinstance(e, CompactionDone)]
    assert starts and folds
    first_start, first_fold = starts[0], next(n for n in folds if n > starts[0])
    # Tool steps ran between the fold's start and its swap: the turn did not wait for it.
    assert any(isinstance(e, ToolCallFinished) for e in events[first_start:first_fold])
    assert provider.order[:3] == ["compression", "released", "answered"]
    # What arrived after the snapshot stands verbatim after the summary in the next request.
    fold = events[first_fold]
    assert isinstance(fold, CompactionDone)
    request = next(
        r for r in server.requests if "FIRST" in str(r.messages) and not is_compression(r.body)
    )
    contents = [str(m.get("content")) for m in request.messages]
    summary_at = next(n for n, c in enumerate(contents) if "FIRST" in c)
    assert INSTRUCTION_MARK not in "".join(contents)
    meanwhile = [e.text for e in events[first_start:first_fold] if isinstance(e, ToolCallFinished)]
    assert meanwhile and all(text in contents[summary_at:] for text in meanwhile)
    assert max(r.prompt_tokens for r in server.requests) <= WINDOW
    assert_history_valid(agent.history)
    session = agent.recorder
    assert isinstance(session, Session)
    session.close()
    records = [json.loads(line) for line in session.journal.path.read_text().splitlines()]
    states = [r["state"] for r in records if r["type"] == "background_fold"]
    assert states[:2] == ["started", "applied"]  # the journal says what became of it
    resumed, history, notes = Session.resume(session.id)
    assert notes == [] and [m.id for m in history] == [m.id for m in agent.history]
    resumed.close()


async def test_a_fold_under_way_when_the_user_undoes_is_dropped_and_never_reaches_the_model(
    server: ScriptedServer, workspace: Path
) -> None:
    write_files(workspace, 30)
    server.context_window = WINDOW
    provider = Provider(0, ["UNDONE", "FRESH"])
    server.fallback = provider
    agent = make_agent(server, workspace, context_window=WINDOW)
    # Turn 1 reads until past early_fold_at and ends before the threshold: its fold is held.
    reads = iter(range(30))

    def reads_until_early(body: dict[str, Any]) -> Text | ToolCalls | Error:
        if is_compression(body) or agent.folds.background is not None:
            provider.reads = iter(())  # the fold began: the turn ends with an answer
            return provider(body)
        return ToolCalls([("read_file", {"path": f"f{next(reads):02d}.txt"})])

    server.fallback = reads_until_early
    events = await run(agent, "Read the files; the secret word is PELICAN.")
    assert isinstance(events[-1], TurnDone) and started_in_background(events)
    pending = agent.folds.background
    assert pending is not None
    session = agent.recorder
    assert isinstance(session, Session)
    rewinder = Rewinder(agent, session)
    await rewinder.apply(await rewinder.plan(None, "conversation"))  # /undo of turn 1
    assert agent.folds.background is None  # dropped: its call is cancelled, never applied
    with provider.lock:
        if provider.held is not None:
            provider.held.set()  # the held call may answer now: nobody listens
    server.fallback = provider
    provider.reads = iter(range(30))
    before = len(server.requests)
    events = await run(agent, "Read the thirty files f00.txt to f29.txt, one at a time.")
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer"
    assert [e for e in events if isinstance(e, CompactionDone)]  # turn 2 folded, afresh
    later = server.requests[before:]
    assert not [r for r in later if "UNDONE" in str(r.messages)]  # the dropped summary
    assert not [r for r in later if "PELICAN" in str(r.messages)]  # the undone turn
    assert_history_valid(agent.history)
    session.close()


async def test_a_failed_background_fold_is_dropped_and_the_ordinary_fold_still_works(
    server: ScriptedServer, workspace: Path
) -> None:
    write_files(workspace, 30)
    server.context_window = WINDOW
    provider = Provider(30, ["FAIL", "RECOVERED"], held=1)  # the ordinary fold is waited for
    server.fallback = provider
    agent = make_agent(server, workspace, context_window=WINDOW)
    events = await run(agent, "Read the thirty files f00.txt to f29.txt, one at a time.")
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer"
    dropped = [e for e in events if isinstance(e, FoldDropped)]
    assert dropped and "no summary today" in dropped[0].why
    folds = [e for e in events if isinstance(e, CompactionDone)]
    assert folds  # the ordinary fold ran at the threshold
    assert any("RECOVERED" in str(r.messages) for r in server.requests)
    assert_history_valid(agent.history)
