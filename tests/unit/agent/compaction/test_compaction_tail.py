"""Step 3 (tail choice and pull back) and step 6 (rebuild) keep every history valid, for any
history and any policy (hypothesis)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.compaction.cheap_tier import shrink_tail
from agent.compaction.engine import Compactor
from agent.compaction.offline_model import OfflineSummarizer
from agent.compaction.policy import CompactionPolicy
from agent.compaction.rebuild import rebuild
from agent.compaction.tail import choose_split
from agent.events import CompactionDone
from agent.model.tokens import TokenLedger
from sessions.archive import ChunkArchive
from sessions.messages import (
    Message,
    ToolCall,
    is_summary,
    provider_messages,
    units,
    unread_results,
)
from tests.support.invariants import assert_history_valid, assert_provider_valid
from tools.result_facts import FACTS_KEY, ReadStamp, ResultFacts


def count(message: Message) -> int:
    return (
        4 + len(message.content or "") // 4 + sum(len(c.arguments) // 4 for c in message.tool_calls)
    )


unit_kinds = st.one_of(
    st.tuples(st.just("user"), st.integers(1, 400)),
    st.tuples(st.just("assistant"), st.integers(1, 400)),
    st.tuples(st.just("tools"), st.integers(1, 4), st.integers(1, 3000)),
)


def build_history(kinds: list[tuple], with_summary: bool) -> list[Message]:
    history = [Message(role="system", content="sys", id="m0")]
    if with_summary:
        history.append(
            Message(role="user", content="old summary", id="s0", meta={"kind": "summary"})
        )
    n = 0

    def nid() -> str:
        nonlocal n
        n += 1
        return f"m{n}"

    for kind in kinds:
        if kind[0] == "user":
            history.append(Message(role="user", content="u" * kind[1], id=nid()))
        elif kind[0] == "assistant":
            history.append(Message(role="assistant", content="a" * kind[1], id=nid()))
        else:
            calls = tuple(
                ToolCall(f"c{n}_{i}", "read_file", json.dumps({"path": f"f{i % 2}.py"}))
                for i in range(kind[1])
            )
            history.append(Message(role="assistant", content=None, tool_calls=calls, id=nid()))
            for call in calls:
                history.append(
                    Message(
                        role="tool",
                        content="r" * kind[2],
                        tool_call_id=call.id,
                        name=call.name,
                        id=nid(),
                    )
                )
    return history


def summary() -> Message:
    return Message(role="user", content="new summary", id="s1", meta={"kind": "summary"})


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    kinds=st.lists(unit_kinds, min_size=1, max_size=40),
    with_summary=st.booleans(),
    tail_messages=st.integers(1, 20),
    tail_tokens=st.integers(100, 5000),
    pull_back=st.integers(0, 5),
    stale_chars=st.integers(200, 3000),
    fresh=st.integers(0, 3),
)
def test_split_and_rebuild_keep_histories_valid(
    kinds: list[tuple],
    with_summary: bool,
    tail_messages: int,
    tail_tokens: int,
    pull_back: int,
    stale_chars: int,
    fresh: int,
) -> None:
    history = build_history([("user", 5), *kinds], with_summary)  # live histories open with a user
    split = choose_split(
        history,
        count,
        tail_messages=tail_messages,
        tail_tokens=tail_tokens,
        pull_back_units=pull_back,
    )
    if split is None:
        spans = units(history, 2 if with_summary else 1)
        roles = [history[begin].role for begin, _ in spans]
        trailing = 0
        while len(roles) > 1 and roles[-1] == "user":
            roles.pop()  # an unanswered request is pulled back, never folded
            trailing += 1
        # Nothing to fold; or the pull back reaches the first request, whose reply is too big
        # to send with it (the instruction may not follow a request, and a reply is not folded
        # unread), so only that request would be folded.
        reaches_first = trailing + pull_back >= len(spans) - 1
        assert len(roles) < 2 or (roles[0] == "user" and reaches_first)
        return
    folded, tail, pulled = split.folded(history), split.tail(history), split.pulled_back(history)
    # A partition: every message after the head is folded, kept or pulled back, exactly once.
    assert folded + tail + pulled == history[split.fold_start :]
    assert folded, "a compaction always folds something"
    assert all(m.meta.get("kind") != "summary" for m in folded + tail + pulled)
    # The compression call's own payload is valid: the history prefix plus the instruction.
    instruction = Message(role="user", content="compress", id="i")
    assert_provider_valid(provider_messages([*history[: split.send_end], instruction]))
    # The rebuilt history is valid, with or without the cheap tier.
    new_tail, shrunk = shrink_tail(tail, chunk=1, stale_chars=stale_chars, fresh_results=fresh)
    assert [m.id for m in new_tail] == [m.id for m in tail]
    assert all(m.id in {t.id for t in tail} for m in shrunk)
    assert_history_valid(rebuild(history[0], summary(), new_tail, pulled))


def test_trailing_user_request_is_pulled_back() -> None:
    history = build_history(
        [("user", 10), ("tools", 2, 800), ("assistant", 50), ("user", 20)], False
    )
    split = choose_split(history, count, tail_messages=12, tail_tokens=100)
    assert split is not None
    assert [m.role for m in split.pulled_back(history)] == ["user"]
    assert history[split.send_end - 1].role == "assistant"


def test_tail_never_starts_with_a_tool_result() -> None:
    history = build_history([("user", 10), ("tools", 3, 100), ("tools", 3, 100)], False)
    for budget in range(10, 400, 10):
        split = choose_split(history, count, tail_messages=100, tail_tokens=budget)
        assert split is not None
        tail = split.tail(history)
        assert not tail or tail[0].role != "tool"


def test_stale_big_outputs_become_stubs_and_repeats_keep_the_newest() -> None:
    history = build_history([("tools", 1, 5000), ("tools", 1, 5000), ("tools", 1, 10)], False)
    tail = history[1:]
    new_tail, shrunk = shrink_tail(tail, chunk=7, stale_chars=1000, fresh_results=1)
    results = [m for m in new_tail if m.role == "tool"]
    # All three call read_file on f0.py: the older two are superseded by the newest.
    assert "superseded" in results[0].content and "superseded" in results[1].content
    assert results[2].content == "r" * 10
    assert "chunk 7" in results[0].content and results[0].id in results[0].content
    assert [m.content for m in shrunk] == ["r" * 5000, "r" * 5000]


def test_a_read_note_never_supersedes_the_result_it_names() -> None:
    """read_file's note for an unchanged re-read (tools/rereads.py) has the same call as the
    result it names: the fold keeps that result (it holds the text) and the note as they are."""
    read = ResultFacts(files_read=("a.py",), read_stamp=ReadStamp(1, 2000, 5000, 1))
    steps = [(read, "r" * 5000), (ResultFacts(unchanged_of="m2"), "[pleat: unchanged]")]
    tail: list[Message] = []
    for fact, text in steps:
        call = ToolCall(f"c{len(tail)}", "read_file", '{"path": "a.py"}')
        tail.append(Message(role="assistant", tool_calls=(call,), id=f"m{len(tail) + 1}"))
        meta = {"is_error": False, FACTS_KEY: fact.to_dict()}
        result = Message("tool", text, tool_call_id=call.id, name=call.name, meta=meta)
        result.id = f"m{len(tail) + 1}"
        tail.append(result)
    new_tail, shrunk = shrink_tail(tail, chunk=1, stale_chars=10_000, fresh_results=1)
    assert new_tail == tail and shrunk == []


@settings(max_examples=40, deadline=None)
@given(
    first=st.lists(unit_kinds, min_size=2, max_size=25),
    second=st.lists(unit_kinds, min_size=2, max_size=25),
    tail_messages=st.integers(1, 12),
    tail_tokens=st.integers(100, 3000),
    stale_chars=st.integers(200, 3000),
)
def test_successive_folds_archive_every_message_exactly_once(
    tmp_path_factory: pytest.TempPathFactory,
    first: list[tuple],
    second: list[tuple],
    tail_messages: int,
    tail_tokens: int,
    stale_chars: int,
) -> None:
    """The engine itself (offline summarizer): fold, grow, fold again; every message that
    left the live history is in the archive exactly once, and the history stays valid."""
    directory = tmp_path_factory.mktemp("archive")
    policy = CompactionPolicy(
        context_window=16_000,
        tail_messages=tail_messages,
        tail_tokens=max(tail_tokens, 100),
        stale_tool_output_chars=stale_chars,
    )
    ids = iter(range(10_000, 20_000))
    compactor = Compactor(
        policy,
        OfflineSummarizer(16_000),
        ChunkArchive(directory, "s"),
        TokenLedger(),
        new_id=lambda: f"x{next(ids)}",
    )
    history = build_history([("user", 5), *first], False)
    gone: set[str] = set()
    for extra in (None, second):
        if extra is not None:
            more = build_history([("user", 5), *extra], False)[1:]
            for message in more:
                message.id = f"y{next(ids)}"
            history = [*history, *_renamed_calls(more)]
        events = asyncio.run(_collect(compactor.compact(history, [], reason="manual")))
        done = events[-1]
        if not isinstance(done, CompactionDone):
            continue
        live = {m.id for m in done.history}
        gone |= {m.id for m in history if m.id not in live and not is_summary(m)}
        history = list(done.history)
        assert_history_valid(history)
    archive = ChunkArchive(directory, "s")
    stored = [m.id for c in archive.chunks() for part in archive.read_parts(c.number) for m in part]
    assert len(stored) == len(set(stored))
    assert gone <= set(stored)


def _renamed_calls(messages: list[Message]) -> list[Message]:
    """Give a second batch's tool calls ids of their own (ids are unique per session)."""
    renames: dict[str, str] = {}
    out = []
    for message in messages:
        if message.tool_calls:
            calls = []
            for call in message.tool_calls:
                renames[call.id] = f"{call.id}_b{message.id}"
                calls.append(ToolCall(renames[call.id], call.name, call.arguments))
            message = dataclasses.replace(message, tool_calls=tuple(calls))
        elif message.role == "tool":
            message = dataclasses.replace(message, tool_call_id=renames[message.tool_call_id or ""])
        out.append(message)
    return out


async def _collect(stream: Any) -> list[Any]:
    return [event async for event in stream]


def test_the_newest_results_are_never_folded_or_stubbed_unread() -> None:
    """The first tool round after a request: the reply and its results are sent with the
    instruction (the request before them cannot end the call) and kept whole, whatever the
    tail's budgets; the cheap tier leaves them alone."""
    for calls, size in ((3, 6_000), (12, 40)):
        history = build_history(
            [("user", 5), ("assistant", 30), ("user", 5), ("tools", calls, size)], False
        )
        # With unique paths, so no result supersedes another.
        split = choose_split(
            history, count, tail_messages=12, tail_tokens=100_000, pull_back_units=1
        )
        assert split is not None
        newest = [m for m in history if m.role == "tool"]
        tail = split.tail(history)
        assert all(m in tail for m in newest), (calls, split)
        unread = unread_results(history)
        new_tail, shrunk = shrink_tail(
            tail, chunk=1, stale_chars=200, fresh_results=0, unread=unread
        )
        assert [m.content for m in new_tail if m.role == "tool"] == [m.content for m in newest]
        assert all(m.role != "tool" for m in shrunk)
