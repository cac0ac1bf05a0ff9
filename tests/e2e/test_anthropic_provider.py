"""Against Anthropic's Messages API (a scripted server on a real socket, through real litellm):
cache breakpoints for a bare `claude-*` model, thinking blocks sent back unchanged, max_tokens
within the window's reserve, and a journal whose cost is exactly the bill."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.events import CompactionDone, Event, ThinkingDelta, TurnDone
from agent.permissions.policy import approve_all
from agent.turn.loop import Agent
from sessions.journal import JOURNAL_NAME
from sessions.store import Session
from tests.support.anthropic_server import AnthropicServer, Reply

KEY = "sk-ant-test-0123456789"
MODEL = "claude-sonnet-4-5"  # bare: litellm resolves it to Anthropic
INSTRUCTION_MARK = "[pleat: context compaction"
SUMMARY = Reply(
    text="<topics>files</topics><continues_previous>false</continues_previous>"
    "<summary>## Task\nRead the files.</summary>"
)
# Anthropic's published prices for Claude Sonnet 4.5, USD per token: the bill the journal must
# match (input, 5-minute cache write at 1.25x, cache read at 0.1x, output).
PRICE_INPUT, PRICE_WRITE, PRICE_READ, PRICE_OUTPUT = 3e-6, 3.75e-6, 0.3e-6, 15e-6


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(str(b.get("text") or b.get("content") or "") for b in content or [])


def is_compression(body: dict[str, Any]) -> bool:
    return INSTRUCTION_MARK in text_of(body["messages"][-1])


def open_agent(server: AnthropicServer, workspace: Path, **config: Any) -> tuple[Agent, Session]:
    settings = Config(model=MODEL, api_base=server.base_url, api_key=KEY, max_retries=0, **config)
    session = Session.create(workspace, model=MODEL)
    agent = build_agent(settings, workspace, approve_all, session=session)
    agent.llm.settings = dataclasses.replace(agent.llm.settings, retry_base_delay=0.001)
    return agent, session


async def turn(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run_turn(prompt)]


def marks(body: dict[str, Any]) -> dict[str, Any]:
    """Where the request's cache_control marks are: tools, system, message indexes."""
    system = body.get("system") or []
    return {
        "tools": [i for i, t in enumerate(body.get("tools") or []) if "cache_control" in t],
        "system": any("cache_control" in block for block in system),
        "messages": [
            i
            for i, m in enumerate(body["messages"])
            if any("cache_control" in b for b in m["content"] if isinstance(b, dict))
        ],
    }


@pytest.mark.slow  # seconds of output or retries: the whole suite runs it
async def test_a_bare_claude_model_gets_breakpoints_on_system_tools_and_conversation(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    replies = iter([Reply(tool_uses=[("read_file", {"path": "a.txt"})]), Reply(text="hello")])
    with AnthropicServer(KEY, lambda body: next(replies)) as server:
        agent, session = open_agent(server, workspace)
        events = await turn(agent, "what does a.txt say?")
        session.close()
    assert isinstance(events[-1], TurnDone) and events[-1].text == "hello"
    first, second = (r.body for r in server.requests)
    tools = len(first["tools"])
    assert marks(first) == {"tools": [tools - 1], "system": True, "messages": [0]}
    # The second request marks the end of the first exactly, and its own end.
    assert marks(second) == {"tools": [tools - 1], "system": True, "messages": [0, 2]}
    # So it reads the whole first request from the cache.
    usage = server.requests[1].usage
    first_usage = server.requests[0].usage
    assert usage["cache_read_input_tokens"] == first_usage["cache_creation_input_tokens"]
    # max_tokens is the window's reserve for the reply, not litellm's 64k default.
    assert first["max_tokens"] == 8_192


async def test_twelve_parallel_tool_calls_do_not_miss_the_cache(workspace: Path) -> None:
    """Twelve calls and twelve results are more than Anthropic's 20-block lookback: the exact
    mark on the previous request's end still finds it."""
    for i in range(12):
        (workspace / f"f{i}.txt").write_text(f"file {i}\n")
    calls = [("read_file", {"path": f"f{i}.txt"}) for i in range(12)]
    replies = iter([Reply(tool_uses=calls), Reply(text="read all")])
    with AnthropicServer(KEY, lambda body: next(replies)) as server:
        agent, session = open_agent(server, workspace)
        await turn(agent, "read the twelve files")
        session.close()
    before, after = (r.usage for r in server.requests)
    before_total = before["cache_creation_input_tokens"] + before["input_tokens"]
    assert after["cache_read_input_tokens"] == before_total


async def test_thinking_comes_back_unchanged_through_tools_folds_and_resume(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    thought = Reply(
        thinking="The user wants a.txt; read it first.",
        signature="EqQBCkgIARABGAIiQL2x-signature-bytes==",
        tool_uses=[("read_file", {"path": "a.txt"})],
    )

    def model(body: dict[str, Any]) -> Reply:
        if is_compression(body):
            return SUMMARY
        if body["messages"][-1]["role"] == "user" and "tool_result" not in json.dumps(
            body["messages"][-1]
        ):
            return thought
        return Reply(text="it says hello")

    with AnthropicServer(KEY, model) as server:
        agent, session = open_agent(server, workspace, thinking="high")
        events = await turn(agent, "what does a.txt say?")
        assert any(isinstance(e, ThinkingDelta) for e in events)
        # The tool turn's next request carries the block exactly, signature included.
        follow_up = server.requests[1].body["messages"][1]
        assert follow_up["content"][0] == {
            "type": "thinking",
            "thinking": thought.thinking,
            "signature": thought.signature,
        }
        assert follow_up["content"][1]["type"] == "tool_use"
        # Extended thinking was asked for, within max_tokens.
        first = server.requests[0].body
        assert first["thinking"] == {"type": "enabled", "budget_tokens": 4_096}
        assert first["max_tokens"] > 4_096
        # A fold keeps the thinking of the reply it keeps.
        await turn(agent, "and again?")
        folds = [e async for e in agent.compact()]
        assert isinstance(folds[-1], CompactionDone)
        kept = [m for m in agent.history if m.thinking_blocks]
        assert kept and kept[-1].thinking_blocks[0]["signature"] == thought.signature
        session.close()
        # Resume brings back the same blocks from the journal.
        resumed, history, _ = Session.resume(session.id)
        resumed.close()
    assert [m.thinking_blocks for m in history if m.thinking_blocks] == [
        m.thinking_blocks for m in agent.history if m.thinking_blocks
    ]


async def test_the_journal_cost_is_the_bill(workspace: Path) -> None:
    """Every call, compression included, is journaled with its usage and cost; the cost is the
    provider's usage priced with cache reads and writes."""
    for i in range(3):
        (workspace / f"f{i}.txt").write_text(f"file {i}\n" * 50)

    def model(body: dict[str, Any]) -> Reply:
        if is_compression(body):
            return SUMMARY
        last = json.dumps(body["messages"][-1])
        if "tool_result" in last:
            return Reply(text="read it")
        index = sum("tool_result" in json.dumps(m) for m in body["messages"])
        return Reply(tool_uses=[("read_file", {"path": f"f{index % 3}.txt"})])

    with AnthropicServer(KEY, model) as server:
        agent, session = open_agent(server, workspace, compaction=CompactionPolicy(tail_messages=2))
        for i in range(3):
            await turn(agent, f"read file {i}")
        folds = [e async for e in agent.compact()]
        assert isinstance(folds[-1], CompactionDone)
        await turn(agent, "one more")
        session.close()
    records = [
        json.loads(line)
        for line in (session.directory / JOURNAL_NAME).read_text().splitlines()
        if '"type": "usage"' in line or '"type":"usage"' in line
    ]
    assert len(records) == len(server.requests)  # every call, the fold's included
    assert [r["purpose"] for r in records].count("compression") == 1
    bill = sum(
        u["input_tokens"] * PRICE_INPUT
        + u["cache_creation_input_tokens"] * PRICE_WRITE
        + u["cache_read_input_tokens"] * PRICE_READ
        + u["output_tokens"] * PRICE_OUTPUT
        for u in (r.usage for r in server.requests)
    )
    assert sum(r["cost"] for r in records) == pytest.approx(bill, rel=1e-9)
    assert any(u["cache_creation_input_tokens"] for u in (r.usage for r in server.requests))
    assert agent.usage.cost == pytest.approx(bill, rel=1e-9)
    assert agent.usage.compression_calls == 1
