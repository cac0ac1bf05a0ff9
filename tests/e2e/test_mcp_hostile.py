"""Careless and hostile MCP servers in `pleat -p` (in process), real servers: tools with malformed
schemas or listing entries are left out with a note and the server's other tools work; a server
whose schemas would fill the window gets only what fits in the MCP tools' share of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.mcp.admission import SCHEMA_SHARE
from agent.model.tokens import payload_tokens
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.mcp_support import raw_table, write_config
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

pytestmark = pytest.mark.slow


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def mcp_tools(server: ScriptedServer, request: int) -> list[str]:
    names = [tool["function"]["name"] for tool in server.requests[request].body.get("tools", [])]
    return [name for name in names if name.startswith("mcp__")]


def test_tools_with_wrong_typed_schema_keywords_are_left_out_and_the_turn_goes_on(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, raw_table("badschema"))
    server.push(
        ToolCalls([("mcp__raw__maxlen", {"text": "hi"}), ("mcp__raw__ok", {"text": "hi"})]),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "go")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert mcp_tools(server, 0) == ["mcp__raw__ok"]
    refused, ran = tool_results(server, 1)
    assert refused.startswith("unknown tool 'mcp__raw__maxlen'")
    assert ran == 'called ok with {"text": "hi"}'
    notes = [line for line in done.stderr.splitlines() if "is not offered" in line]
    assert (
        "pleat: note: MCP server raw: tool 'maxlen' is not offered: its input schema is "
        'malformed: properties.text.maxLength must be a non-negative integer, got "10"'
    ) in notes
    assert any("tool 'low'" in n and 'properties.n.minimum must be a number, got "0"' in n
               for n in notes)  # fmt: skip
    assert any("tool 'choice'" in n and "properties.text.enum must be a list" in n for n in notes)
    assert any("tool 'needs'" in n and "required" in n for n in notes)
    assert "Traceback" not in done.stderr


def test_a_malformed_listing_entry_costs_only_itself(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, raw_table("malformed"))
    server.push(ToolCalls([("mcp__raw__ok", {"text": "still here"})]), Text("done"))
    done = run_pleat(workspace, server, "-p", "go")
    assert done.returncode == 0, done.stderr
    assert mcp_tools(server, 0) == ["mcp__raw__ok"]
    assert tool_results(server, 1) == ['called ok with {"text": "still here"}']
    assert "failed" not in done.stderr
    assert (
        "pleat: note: MCP server raw: tool 'stringy' is not offered: the server describes it "
        "wrongly (inputSchema: "
    ) in done.stderr
    assert "pleat: note: MCP server raw: a tool with no name is not offered" in done.stderr


def test_big_schemas_get_only_their_share_of_the_window_and_the_rest_is_said(
    workspace: Path, pleat_home: Path
) -> None:
    window = 64_000  # the model's, as pleat is told and as the provider enforces it
    write_config(pleat_home, raw_table("fat"))  # 100 tools of 15,000-character schemas
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}, context_window=window) as srv:
        srv.push(Text("hello"))
        done = run_pleat(workspace, srv, "-p", "hi", "--compaction", f"context_window={window}")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "hello"
        offered = mcp_tools(srv, 0)
        tools = srv.requests[0].body["tools"]
    assert 0 < len(offered) < 100
    assert offered == [f"mcp__raw__f{i:03d}" for i in range(len(offered))]  # the sorted prefix
    schemas = [tool for tool in tools if tool["function"]["name"].startswith("mcp__")]
    usable = window - 8_192  # the reply's default reserve
    assert payload_tokens(schemas) <= SCHEMA_SHARE * usable
    notes = [line for line in done.stderr.splitlines() if "not offered" in line]
    left = 100 - len(offered)
    assert notes == [
        f"pleat: note: MCP server raw: {left} tools not offered (f{len(offered):03d}, "
        f"f{len(offered) + 1:03d}, "
        + ", ".join(f"f{i:03d}" for i in range(len(offered) + 2, len(offered) + 12))
        + f" and {left - 12} more): the MCP tools' schemas may take 25% of the model's usable "
        f"window ({int(SCHEMA_SHARE * usable):,} tokens) together, and these would go past it"
    ]


def test_tools_past_the_count_cap_are_said_once_on_stderr(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    write_config(pleat_home, raw_table("fat", RAW_TOOLS="130", RAW_SCHEMA_CHARS="150"))
    server.push(Text("hello"))
    done = run_pleat(workspace, server, "-p", "hi", "--compaction", "context_window=1000000")
    assert done.returncode == 0, done.stderr
    assert len(mcp_tools(server, 0)) == 100
    notes = [line for line in done.stderr.splitlines() if "not offered" in line]
    assert notes == [
        "pleat: note: MCP server raw: 30 tools not offered (f100, f101, f102, f103, f104, f105, "
        "f106, f107, f108, f109, f110, f111 and 18 more): at most 100 MCP tools are offered (a "
        "request takes 128 tools at most)"
    ]


def test_a_result_with_a_lone_surrogate_comes_back_with_a_replacement_character(
    server: ScriptedServer, workspace: Path, pleat_home: Path
) -> None:
    # The SDK cannot parse such a line: before, the call waited for its time limit, then failed.
    write_config(pleat_home, raw_table("surrogate") + "tool_timeout_sec = 20\n")
    server.push(ToolCalls([("mcp__raw__ok", {"text": "hi"})]), Text("done"))
    done = run_pleat(workspace, server, "-p", "go")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert tool_results(server, 1) == ['called ok with {"text": "hi"} and a lone \ufffd surrogate']
    assert "Traceback" not in done.stderr and "Failed to parse" not in done.stderr
