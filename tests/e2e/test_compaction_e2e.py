"""The compaction engine end to end: the real agent, the real litellm, the scripted server as the
provider (with a real window it enforces and a prefix cache it reports), real chunk files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.events import (
    CompactionDone,
    CompactionFailed,
    CompactionStarted,
    ToolCallFinished,
    TurnDone,
)
from agent.turn.loop import Agent
from sessions.archive import ChunkArchive
from sessions.messages import Message
from tests.support.compaction_agent import (
    GOOD_SUMMARY,
    WINDOW,
    fill_history,
    is_compression,
    make_agent,
    run,
)
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import Error, ReceivedRequest, ScriptedServer, Text, ToolCalls

FILES = 40
# About 1,000 tokens per file as the scripted provider counts them (4 characters a token).
FILE_CHARS = 4_000


def file_text(i: int) -> str:
    lines = [
        f"file {i:02d} line {n:02d}: value {i * 7919 + n}, and some filler words to read"
        for n in range(60)
    ]
    return "\n".join(lines)[:FILE_CHARS] + "\n"


def archive_of(agent: Agent) -> ChunkArchive:
    assert agent.compactor is not None
    return agent.compactor.archive


def archived(agent: Agent) -> list[Message]:
    archive = archive_of(agent)
    return [m for chunk in archive.chunks() for m in archive.read_messages(chunk.number)]


def compression_requests(server: ScriptedServer) -> list[ReceivedRequest]:
    return [r for r in server.requests if is_compression(r.body)]


@pytest.mark.slow  # forty reads through the real loop
async def test_forty_file_reads_in_one_request_under_a_16k_window(
    server: ScriptedServer, workspace: Path
) -> None:
    """The issue's done-when: one request, forty ~1k-token files, a 16k window."""
    for i in range(FILES):
        (workspace / f"f{i:02d}.txt").write_text(file_text(i))
    server.context_window = WINDOW
    reads = iter(range(FILES))

    def model(body: dict[str, Any]) -> Text | ToolCalls:
        if is_compression(body):
            return Text(GOOD_SUMMARY)
        i = next(reads, None)
        if i is None:
            return Text("All forty files are read.")
        return ToolCalls([("read_file", {"path": f"f{i:02d}.txt"})])

    server.fallback = model
    agent = make_agent(server, workspace)
    events = await run(agent, "Read all forty files f00.txt to f39.txt, one at a time.")

    done = events[-1]
    assert isinstance(done, TurnDone) and done.reason == "answer", events[-3:]
    assert done.text == "All forty files are read."
    folds = [e for e in events if isinstance(e, CompactionDone)]
    assert len(folds) >= 2
    assert not [e for e in events if isinstance(e, CompactionFailed)]
    # No request went over the window (the server would have refused it with a 400).
    assert max(r.prompt_tokens for r in server.requests) <= WINDOW
    # The compression calls reused the provider's prompt cache.
    compressions = compression_requests(server)
    pending = 1 if agent.folds.background is not None else 0  # started early, not needed yet
    assert len(compressions) == len(folds) + pending
    started = [e.background for e in events if isinstance(e, CompactionStarted)]
    assert len(started) == len(compressions) and any(started)  # some began in the background
    cached = sum(r.cached_tokens for r in compressions) / sum(r.prompt_tokens for r in compressions)
    assert cached >= 0.8, f"compression calls {cached:.0%} cache-served"
    assert all(e.method == "insert" for e in folds)
    # Every folded message stands verbatim in the chunk files: each archived tool result is
    # exactly what the tool returned, and every file's content is in the archive or live.
    returned = {e.call.id: e.text for e in events if isinstance(e, ToolCallFinished)}
    stored = archived(agent)
    folded_reads = [m for m in stored if m.role == "tool"]
    assert folded_reads
    for message in folded_reads:
        assert message.content == returned[message.tool_call_id]
    everything = "\n".join((m.content or "") for m in [*stored, *agent.history])
    for i in range(FILES):
        assert f"value {i * 7919 + 59}," in everything, f"file {i} lost"
    assert_history_valid(agent.history)
    # The live history is small again and starts with the summary.
    assert agent.history[1].meta.get("kind") == "summary"


async def test_a_history_that_already_overflows_recovers(
    server: ScriptedServer, workspace: Path
) -> None:
    """The provider refuses the next request; pleat learns the window it states, folds (the
    head is too big for one call, so in pieces) and the request finishes."""
    server.context_window = WINDOW

    def model(body: dict[str, Any]) -> Text:
        return Text(GOOD_SUMMARY) if is_compression(body) else Text("recovered")

    server.fallback = model
    # pleat believes the window is 100k; the provider's is 16k and it has 30k of history.
    agent = make_agent(server, workspace, context_window=100_000)
    fill_history(agent, turns=30, chars=4_000)
    events = await run(agent, "and now?")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "recovered", events[-4:]
    folds = [e for e in events if isinstance(e, CompactionDone)]
    assert folds and folds[0].reason == "overflow"
    assert folds[-1].tokens_after < WINDOW
    assert_history_valid(agent.history)
    assert len(archived(agent)) == len({m.id for m in archived(agent)})


@pytest.mark.parametrize(
    "bad",
    [
        Text("Sure, here is what we did: we read files."),
        Text(""),
        ToolCalls([("read_file", {"path": "x"})]),
    ],
    ids=["no-tags", "empty", "calls-a-tool"],
)
async def test_unusable_summaries_leave_the_history_unchanged(
    server: ScriptedServer, workspace: Path, bad: Any
) -> None:
    agent = make_agent(server, workspace)
    fill_history(agent, turns=6, chars=500)
    before = [m.to_record() for m in agent.history]
    server.push(bad, bad)
    events = [e async for e in agent.compact(focus="the parts")]
    assert isinstance(events[-1], CompactionFailed)
    assert "history unchanged" in events[-1].message
    assert [m.to_record() for m in agent.history] == before
    assert archive_of(agent).chunks() == []
    assert len(compression_requests(server)) == 2  # one retry, then give up
    assert "the parts" in server.requests[0].messages[-1]["content"]  # the focus was passed on


async def test_one_retry_rescues_a_bad_summary(server: ScriptedServer, workspace: Path) -> None:
    agent = make_agent(server, workspace)
    fill_history(agent, turns=6, chars=500)
    server.push(Text("no tags here"), Text(GOOD_SUMMARY))
    events = [e async for e in agent.compact()]
    assert isinstance(events[-1], CompactionDone)
    assert_history_valid(agent.history)


async def test_server_error_during_compaction_leaves_history_unchanged(
    server: ScriptedServer, workspace: Path
) -> None:
    agent = make_agent(server, workspace)
    fill_history(agent, turns=6, chars=500)
    before = [m.to_record() for m in agent.history]
    server.push(*[Error(500, "upstream down", type="server_error")] * 4)
    events = [e async for e in agent.compact()]
    assert isinstance(events[-1], CompactionFailed)
    assert "upstream down" in events[-1].message
    assert [m.to_record() for m in agent.history] == before
    assert archive_of(agent).chunks() == []


async def test_manual_compaction_is_anchored_and_merges(
    server: ScriptedServer, workspace: Path
) -> None:
    """A second fold updates the first summary and merges into its chunk when the model says
    the work continues; every message is archived exactly once."""
    agent = make_agent(server, workspace)
    fill_history(agent, turns=6, chars=500)
    first = "<topics>parts</topics><summary>FIRST SUMMARY</summary>"
    server.push(Text(first))
    assert isinstance([e async for e in agent.compact()][-1], CompactionDone)
    fill_history(agent, turns=6, chars=500)
    server.push(Text(GOOD_SUMMARY))
    events = [e async for e in agent.compact()]
    done = events[-1]
    assert isinstance(done, CompactionDone) and done.merged and done.chunk == 1
    instruction = server.requests[-1].messages[-1]["content"]
    assert "FIRST SUMMARY" in instruction and "parts" in instruction
    ids = [m.id for m in archived(agent)]
    assert len(ids) == len(set(ids))
    live = {m.id for m in agent.history}
    assert not live & set(ids) - {m.id for m in agent.history if m.meta.get("shrunk_to_chunk")}
    assert_history_valid(agent.history)
    summary = agent.history[1].content or ""
    assert "read_archive" in summary and "chunk 1" in summary
    assert "request 0: look at part 0" in summary  # the user's own words, kept by the ledger
