"""Load: a 10,000-message session with 50 folds replays and resumes in bounded memory."""

# The measured figures (tracemalloc peaks) are in docs/FUZZING-AND-LOAD.md.

from __future__ import annotations

import asyncio
import json
import tracemalloc
from pathlib import Path

import pytest

from agent.compaction.policy import CompactionPolicy
from agent.events import CompactionDone
from agent.model.tokens import count_text
from agent.replay.cache_model import CacheModel, Charge
from agent.replay.recorded import RecordedSession
from agent.replay.strategies import run_strategy
from sessions.journal import JOURNAL_NAME
from sessions.messages import Message, ToolCall
from sessions.store import CHUNKS_DIR, Session
from tests.support.invariants import assert_history_valid

# Slow (ten thousand messages): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# The session: a system prompt, then exchanges of a request, MAX_CALLS command rounds and an
# answer, until MESSAGES messages.
MESSAGES = 10_000
# Command rounds (an assistant call + its result) per request, like an agent at work.
CALLS_PER_REQUEST = 4
# Characters of each command's output (~120 tokens) and the window: a 32k-token window then
# folds every ~200 messages, about 50 times in all.
OUTPUT_CHARS = 480
WINDOW = 32_000
# Folds expected: the brief's 50, give or take the last partial window.
MIN_FOLDS = 45
# Bytes of Python memory the replay or the resume may hold at their peak: 200 MB is far
# above what either needs (a window's worth of messages, one chunk at a time) and far below
# what holding every message, summary and chunk at once would take with tracemalloc's overhead.
PEAK_BOUND = 200 * 1024 * 1024


def synthetic_session() -> RecordedSession:
    messages = [Message(role="system", content="You are a coding agent.", id="m0")]
    exchange = 0
    while len(messages) < MESSAGES:
        exchange += 1
        messages.append(Message(role="user", content=f"request {exchange}: fix bug {exchange}"))
        for call_number in range(CALLS_PER_REQUEST):
            call = ToolCall(
                f"call_{exchange}_{call_number}",
                "bash",
                json.dumps({"command": f"pytest tests/test_{exchange}_{call_number}.py"}),
            )
            messages.append(Message(role="assistant", content=None, tool_calls=(call,)))
            output = f"test_{exchange}_{call_number} line\n" * (OUTPUT_CHARS // 20)
            messages.append(Message(role="tool", content=output, tool_call_id=call.id, name="bash"))
        messages.append(Message(role="assistant", content=f"fixed bug {exchange}"))
    messages = messages[:MESSAGES]
    while messages[-1].role == "assistant" and messages[-1].tool_calls:
        messages.pop()  # never end on an unanswered call
    for number, message in enumerate(messages):
        message.id = f"m{number}"
    return RecordedSession("load", messages)


class Unpriced(CacheModel):
    """Replay's price model, switched off: it converts and JSON-encodes every message of every
    request (most of the replay's time here) and prices nothing this test looks at."""

    def request(self, messages: object, tools: object, *, cacheable: bool = True) -> Charge:
        return Charge(0, 0, 0.0)

    def request_history(self, history: object, tools: object) -> Charge:
        return Charge(0, 0, 0.0)


@pytest.fixture
def journaled(tmp_path: Path, pleat_home: Path) -> tuple[Session, list[Message], int, int]:
    """Replays the session (the peak is measured) and journals it as a live session would:
    every message, and each fold with its rebuilt history and chunk state."""
    recorded = synthetic_session()
    session = Session.create(tmp_path, model="offline")
    written = 0

    def journal_until(last: Message) -> None:
        nonlocal written
        end = int(last.id[1:]) + 1
        for message in recorded.messages[written:end]:
            session.message(message)
        written = end

    def on_compaction(before: list[Message], done: CompactionDone) -> None:
        journal_until(before[-1])
        session.compaction(done.chunk, done.merged, done.history)

    count_text("warm up")  # tiktoken's tables load once per process: not the replay's memory
    tracemalloc.start()
    try:
        result = asyncio.run(
            run_strategy(
                "insert",
                recorded,
                policy=CompactionPolicy(context_window=WINDOW),
                window=WINDOW,
                archive_dir=session.directory / CHUNKS_DIR,
                cache=Unpriced(),
                on_compaction=on_compaction,
            )
        )
        _, replay_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    journal_until(recorded.messages[-1])
    session.journal.sync_now()
    session.close()
    assert result.finished and result.failures == 0
    assert result.compactions >= MIN_FOLDS, result.compactions
    return session, recorded.messages, result.compactions, replay_peak


def test_a_ten_thousand_message_session_replays_and_resumes_in_bounded_memory(
    journaled: tuple[Session, list[Message], int, int],
) -> None:
    session, messages, folds, replay_peak = journaled
    lines = (session.directory / JOURNAL_NAME).read_text().count("\n")
    assert lines >= MESSAGES + folds
    tracemalloc.start()
    try:
        resumed, history, notes = Session.resume(session.id)
        _, resume_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    try:
        assert notes == []
        assert_history_valid(history)
        assert history[-1].id == messages[-1].id
        assert len(history) < MESSAGES // 20, "the resumed history is the folded one"
        chunks = resumed.archive.chunks()
        assert chunks and sum(c.message_count for c in chunks) + len(history) >= MESSAGES // 2
    finally:
        resumed.close()
    print(  # the figures docs/FUZZING-AND-LOAD.md reports (pytest -s shows them)
        f"\nload: {len(messages)} messages, {folds} folds, {len(chunks)} chunks, journal "
        f"{lines} lines; replay peak {replay_peak / 2**20:.1f} MiB, resume peak "
        f"{resume_peak / 2**20:.1f} MiB"
    )
    assert replay_peak < PEAK_BOUND and resume_peak < PEAK_BOUND
