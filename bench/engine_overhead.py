"""Engine overhead without a model: per-turn accounting and per-compaction bookkeeping as the
history grows, and resume time as the session grows. Prints a table, writes results JSON."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.compaction.engine import Compactor  # noqa: E402
from agent.compaction.policy import CompactionPolicy  # noqa: E402
from agent.events import CompactionDone  # noqa: E402
from agent.model.llm import LLMReply  # noqa: E402
from agent.model.tokens import TokenLedger  # noqa: E402
from sessions.archive import ChunkArchive  # noqa: E402
from sessions.messages import Message, ToolCall  # noqa: E402
from sessions.usage import Usage  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "engine.json"
# History sizes of the per-turn accounting measurement (messages).
SIZES = (100, 1_000, 10_000)
# Turns timed at each size; each appends an assistant reply and a tool result.
TURNS = 500
# The compaction bookkeeping is measured on a history of about this many tokens.
BOOKKEEPING_TOKENS = 200_000
# Resume: a session of this many messages with this many chunks (the goal).
RESUME_MESSAGES, RESUME_CHUNKS = 10_000, 20
REPEATS = 5
SUMMARY = "<topics>bench</topics><summary>## Task\nbenchmark\n</summary>"


class InstantModel:
    """Answers every compression call at once: the model's time is not the engine's."""

    def __init__(self, window: int) -> None:
        self.window = window

    def context_window(self) -> int:
        return self.window

    def reply_limits(self) -> tuple[int, int | None]:
        return 0, None  # no thinking, no output limit to respect

    async def stream(
        self, messages: list[dict[str, Any]], tools: Any = None, *, max_tokens: int | None = None
    ) -> AsyncIterator[LLMReply]:
        yield LLMReply(SUMMARY, (), Usage(), "stop")


def turn_messages(n: int, size: int = 400) -> list[Message]:
    """A realistic unit: an assistant tool call and its result of `size` characters."""
    call = ToolCall(f"call_{n}", "run_command", json.dumps({"command": f"pytest -k case_{n}"}))
    return [
        Message(role="assistant", content=f"Running case {n}.", tool_calls=(call,), id=f"m{2 * n}"),
        Message(
            role="tool",
            content=f"case {n} output line\n" * (size // 20) + "exit code: 0",
            tool_call_id=call.id,
            name=call.name,
            id=f"m{2 * n + 1}",
        ),
    ]


def history_of(messages: int, size: int = 400) -> list[Message]:
    history = [Message(role="system", content="bench system prompt", id="m0")]
    history.append(Message(role="user", content="run every case", id="m1"))
    n = 1
    while len(history) < messages:
        history += turn_messages(n, size)
        n += 1
    return history


def per_turn_accounting(size: int) -> float:
    """Milliseconds per turn: append a reply and a result (each counted once, here), measure
    the context, decide on a fold."""
    history = history_of(size)
    window = 10**9  # never due: the decision itself is what is timed
    compactor = Compactor(
        CompactionPolicy(context_window=window, max_messages=0),
        InstantModel(window),
        ChunkArchive(Path(tempfile.mkdtemp()), "bench"),
        TokenLedger(),
        new_id=lambda: "x",
        window=window,
    )
    tokens = compactor.tokens
    tokens.report(tokens.estimate(history), history, len(history))  # as after a reply
    extra = [m for n in range(size, size + TURNS) for m in turn_messages(n)]
    started = time.perf_counter()
    for index in range(0, len(extra), 2):
        history += extra[index : index + 2]
        compactor.due(history)
        tokens.report(tokens.size(history), history, len(history))
    return (time.perf_counter() - started) * 1000 / TURNS


async def bookkeeping() -> tuple[float, int]:
    """Milliseconds of one compaction without the model, at about 200k tokens."""
    times = []
    tokens_seen = 0
    for _ in range(REPEATS):
        history = history_of(2, 400)
        tokens = TokenLedger()
        n = 1
        while tokens.estimate(history) < BOOKKEEPING_TOKENS:
            history += turn_messages(10_000 + n, 2_000)
            n += 1
        tokens_seen = tokens.estimate(history)
        window = int(tokens_seen / 0.5)
        compactor = Compactor(
            CompactionPolicy(context_window=window),
            InstantModel(window),
            ChunkArchive(Path(tempfile.mkdtemp()) / "chunks", "bench"),
            tokens,
            new_id=lambda: "summary",
            window=window,
        )
        started = time.perf_counter()
        async for event in compactor.compact(history, [], reason="manual"):
            last = event
        times.append((time.perf_counter() - started) * 1000)
        assert isinstance(last, CompactionDone), last
    return statistics.median(times), tokens_seen


def resume_time() -> float:
    """Seconds to resume a session of RESUME_MESSAGES messages and RESUME_CHUNKS chunks."""
    home = tempfile.mkdtemp()
    os.environ["PLEAT_HOME"] = home
    from sessions.store import Session

    session = Session.create(Path(home), model="bench")
    history = history_of(RESUME_MESSAGES)
    per_chunk = len(history) // RESUME_CHUNKS
    for chunk in range(RESUME_CHUNKS):
        batch = history[1 + chunk * per_chunk : 1 + (chunk + 1) * per_chunk]
        for message in batch:
            session.message(message)
        info = session.archive.write_chunk(batch[:-10], topics=f"part {chunk}", tokens=1000)
        summary = Message(role="user", content="summary", id=f"s{chunk}", meta={"kind": "summary"})
        session.journal.compaction(
            chunk=info.number,
            merged=False,
            chunk_state=info.state(),
            history=[history[0], summary, *batch[-10:]],
        )
    session.close()
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        resumed, _, _ = Session.resume(session.id)
        times.append(time.perf_counter() - started)
        resumed.close()
    return statistics.median(times)


def main() -> None:
    per_turn = {size: per_turn_accounting(size) for size in SIZES}
    bookkeeping_ms, tokens = asyncio.run(bookkeeping())
    resume_s = resume_time()
    results = {
        "per_turn_ms": per_turn,
        "bookkeeping_ms": bookkeeping_ms,
        "bookkeeping_tokens": tokens,
        "resume_s": resume_s,
        "resume_messages": RESUME_MESSAGES,
        "resume_chunks": RESUME_CHUNKS,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))
    for size, ms in per_turn.items():
        print(f"per-turn accounting at {size:>6} messages: {ms:.3f} ms (goal < 1 ms)")
    print(f"compaction bookkeeping at {tokens} tokens: {bookkeeping_ms:.1f} ms (goal < 50 ms)")
    print(
        f"resume of {RESUME_MESSAGES} messages, {RESUME_CHUNKS} chunks: {resume_s:.3f} s "
        "(goal < 0.5 s)"
    )


if __name__ == "__main__":
    main()
