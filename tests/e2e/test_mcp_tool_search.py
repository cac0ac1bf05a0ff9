"""MCP tools past the schemas' share are found, not lost: the real agent, a real MCP server with
more tools than fit, the scripted model. tool_search finds a left-out tool by name; it joins the
tool list at the next turn's start (never within the turn that searched: the cache holds), the
share still holds, and the model calls it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.mcp.admission import SCHEMA_SHARE
from agent.mcp.manager import McpServers
from agent.mcp.settings import from_config
from agent.model.tokens import payload_tokens
from agent.permissions.policy import approve_all
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.mcp_support import RAW_SERVER
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

pytestmark = pytest.mark.slow

# Thirty tools of ~1,400-character schemas (a few hundred tokens each) in a 16k window: a dozen
# or so fit the MCP tools' share, the last ones are left out.
FAT = {"RAW_MODE": "fat", "RAW_TOOLS": "30", "RAW_SCHEMA_CHARS": "1400"}
WINDOW = 16_000


def mcp_schemas(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in body["tools"] if t["function"]["name"].startswith("mcp__")]


def names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body["tools"]]


async def test_a_left_out_tool_is_found_and_joins_at_the_next_turn(
    server: ScriptedServer, workspace: Path
) -> None:
    table = {"command": sys.executable, "args": [str(RAW_SERVER)], "env": FAT}
    servers = McpServers(workspace, from_config({"raw": table}, "config.toml"))
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        compaction=CompactionPolicy(context_window=WINDOW),
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve_all, session=session, mcp=servers)
    server.push(
        ToolCalls([("tool_search", {"query": "f029"})]),
        Text("found it; it is yours from your next message"),
        ToolCalls([("mcp__raw__f029", {})]),
        Text("done"),
    )
    await servers.start()
    await servers.settled()
    try:
        _ = [event async for event in agent.run_turn("use the f029 tool")]
        _ = [event async for event in agent.run_turn("go on")]
    finally:
        await servers.stop()
    first, same_turn, next_turn, last = (request.body for request in server.requests)

    assert "mcp__raw__f029" not in names(first) and "tool_search" in names(first)
    found = [m for m in same_turn["messages"] if m["role"] == "tool"][-1]["content"]
    assert found.startswith("1 MCP tool found for 'f029'. They join your tools at the start of")
    assert "- mcp__raw__f029: x" in found
    assert names(same_turn) == names(first)  # not within the turn that searched
    assert "mcp__raw__f029" in names(next_turn) and names(last) == names(next_turn)
    usable = agent.compactor.budget.usable if agent.compactor is not None else 0
    assert payload_tokens(mcp_schemas(next_turn)) <= SCHEMA_SHARE * usable  # the share holds
    gave_way = set(names(first)) - set(names(next_turn))  # the last taken, never called
    assert gave_way and all(name.startswith("mcp__raw__f0") for name in gave_way)
    assert [m for m in last["messages"] if m["role"] == "tool"][-1]["content"] == (
        "called f029 with {}"
    )
    notes = servers.servers[0].notes
    assert notes[0].endswith("; tool_search finds them, to join at the next turn")
    assert "tool_search found f029: they join at your next request" in notes
