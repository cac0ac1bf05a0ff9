"""Fault matrix, provider rows: rate limits, 5xx, hangs, cut or garbled streams, max-token cuts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.events import ErrorEvent, Retrying, ToolCallFinished, TurnDone
from agent.headless.run import EXIT_FAILED, EXIT_OK
from agent.turn.notes import CUT_ARGUMENTS_NOTE, TRUNCATED_MESSAGE
from tests.support.faults_harness import (
    assert_one_line,
    assert_survives,
    headless_turn,
    open_agent,
    turn,
)
from tests.support.scripted_server import (
    Drop,
    EmptyChoices,
    Error,
    Garbage,
    ScriptedServer,
    Stall,
    Text,
    ToolCalls,
)

# The request timeout of the hung-provider row: far below the stall, so the row is quick, and
# far above a local round trip, so an answering server is never taken for a hung one.
REQUEST_TIMEOUT = 0.5
# Seconds the hung provider stays silent (its thread sleeps; the client gives up long before).
STALL_SECONDS = 5.0
RATE_LIMITED = Error(429, "Rate limit reached for requests", code="rate_limit_exceeded")
SERVER_ERROR = Error(500, "internal failure", type="server_error")
OVERLOADED = Error(503, "the engine is overloaded", type="server_error")


async def test_rate_limit_is_retried_then_answers(server: ScriptedServer, workspace: Path) -> None:
    session, agent = open_agent(server, workspace)
    server.push(RATE_LIMITED, Text("answered after the wait"))
    events = await turn(agent, "hello")
    assert [e.attempt for e in events if isinstance(e, Retrying)] == [1]
    assert isinstance(events[-1], TurnDone) and events[-1].text == "answered after the wait"
    await assert_survives(server, session, agent)


# (replies the provider gives, settings, words the one line must hold): every retry is spent
# (max_retries=1: two requests), then `pleat -p` says what happened in one line.
FAILURES: dict[str, tuple[list[Any], dict[str, Any], str]] = {
    "429-exhausted": ([RATE_LIMITED] * 2, {}, "rate limited by"),
    "500": ([SERVER_ERROR] * 2, {}, "server error from"),
    "503": ([OVERLOADED] * 2, {}, "server error from"),
    "timeout": (
        [Stall(STALL_SECONDS)] * 2,
        {"request_timeout": REQUEST_TIMEOUT},
        f"no answer from {{base}} within {REQUEST_TIMEOUT:g} s",
    ),
    "malformed-sse": ([Garbage()] * 2, {}, "the stream held invalid JSON"),
}


@pytest.mark.parametrize("fault", list(FAILURES))
async def test_provider_failure_is_one_clear_line(
    server: ScriptedServer, workspace: Path, fault: str
) -> None:
    replies, settings, words = FAILURES[fault]
    words = words.format(base=server.base_url)
    session, agent = open_agent(server, workspace, **settings)
    before = len(agent.history)
    server.push(*replies)
    code, out, err = await headless_turn(agent, "hello")
    assert code == EXIT_FAILED and out == ""
    assert_one_line(err)
    assert err.startswith("pleat: error: ") and words in err and "gave up after 2 tries" in err
    assert len(server.requests) == 2  # bounded: the first try and one retry, no more
    # The request and a closing note are kept, so the history still alternates.
    user, note = agent.history[before:]
    assert user.content == "hello" and note.role == "assistant" and words in note.content
    await assert_survives(server, session, agent)


async def test_malformed_sse_after_text_keeps_the_partial_reply(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = open_agent(server, workspace)
    server.push(Garbage(text="Half of an answer"))
    events = await turn(agent, "hello")
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert_one_line(error.message)
    assert "mid-stream" in error.message and "invalid JSON" in error.message
    assert len(server.requests) == 1  # text was shown: a retry would show it twice
    kept = agent.history[-1]
    assert kept.role == "assistant" and kept.content.startswith("Half of an answer\n[no reply: ")
    await assert_survives(server, session, agent)


async def test_dropped_stream_keeps_the_partial_reply_with_a_note(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = open_agent(server, workspace)
    server.push(Drop(text="The first part arrives and then the line goes dead", after_chunks=3))
    events = await turn(agent, "hello")
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "error"
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert_one_line(error.message)
    assert "closed the stream before the reply ended" in error.message
    kept = agent.history[-1].content
    assert kept.startswith("The first part arrive\n")  # 3 pieces of 7 characters
    assert kept.endswith(f"[no reply: {error.message}]")
    await assert_survives(server, session, agent)


async def test_empty_choices_are_an_empty_reply(server: ScriptedServer, workspace: Path) -> None:
    session, agent = open_agent(server, workspace)
    server.push(EmptyChoices(chunks=4))
    code, out, err = await headless_turn(agent, "hello")
    assert code == EXIT_FAILED and out == ""
    assert err == "pleat: error: the model returned an empty reply\n"
    assert len(server.requests) == 1  # a complete stream, not a cut one: not retried
    assert agent.history[-1].content == "[empty reply]"
    await assert_survives(server, session, agent)


async def test_text_cut_at_max_tokens_is_kept_with_a_notice(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = open_agent(server, workspace)
    server.push(Text("Here are the first three steps of", finish="length"))
    code, out, err = await headless_turn(agent, "explain")
    assert code == EXIT_OK
    assert out == "Here are the first three steps of\n"
    assert err == f"pleat: note: {TRUNCATED_MESSAGE}\n"
    assert agent.history[-1].content == "Here are the first three steps of"
    await assert_survives(server, session, agent)


async def test_tool_arguments_cut_at_max_tokens_are_reported_as_invalid_json(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = open_agent(server, workspace)
    cut = '{"path": "big.txt", "content": "line one\\nline two\\nline thr'
    server.push(ToolCalls([("write_file", cut)], finish="length"), Text("I will write it in parts"))
    events = await turn(agent, "write big.txt")
    assert any(isinstance(e, ErrorEvent) and e.kind == "truncated" for e in events)
    result = next(e for e in events if isinstance(e, ToolCallFinished))
    assert result.is_error and "not valid JSON" in result.text
    assert result.text.endswith(CUT_ARGUMENTS_NOTE)
    assert not (workspace / "big.txt").exists()
    assert isinstance(events[-1], TurnDone) and events[-1].text == "I will write it in parts"
    # The model read why its call failed.
    assert server.requests[-1].messages[-1]["content"] == result.text
    await assert_survives(server, session, agent)
