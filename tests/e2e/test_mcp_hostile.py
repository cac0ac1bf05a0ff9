"""Careless and hostile MCP servers in `pleat -p`, real processes: tools with malformed schemas or
listing entries are left out with a note and the server's other tools work; a server whose
schemas would fill the window gets only what fits in the MCP tools' share of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_support import raw_table, write_config
from pleat_process import run_pleat
from scripted_server import ScriptedServer, Text, ToolCalls

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
