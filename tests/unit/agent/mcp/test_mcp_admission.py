"""Which MCP tools are offered as the window changes: the share is taken again at each change."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult

from agent.mcp.admission import Admission
from agent.mcp.tool import McpTool


async def never(remote: str, arguments: dict[str, Any]) -> CallToolResult:
    raise AssertionError("not called")


def tools(count: int) -> list[McpTool]:
    schema = {"type": "object", "properties": {}}
    return [McpTool("docs", f"mcp__docs__t{i}", f"t{i}", "x", schema, never) for i in range(count)]


def test_a_smaller_window_sends_the_last_tools_away_and_a_larger_one_brings_them_back() -> None:
    window = {"usable": 400}  # the share is 100: ten tools of ten tokens
    admission = Admission()
    admission.limit(lambda: window["usable"], lambda text: 10)
    listed = tools(12)
    dropped = admission.decide(listed)
    assert list(admission.offered) == [tool.name for tool in listed[:10]]
    assert [(tool.name, why) for tool, why in dropped] == [
        ("mcp__docs__t10", "budget"),
        ("mcp__docs__t11", "budget"),
    ]
    assert admission.decide(listed) == []  # the same window: nothing changes, nothing said

    window["usable"] = 160  # a smaller model: the share is 40, four tools
    dropped = admission.decide(listed)
    assert list(admission.offered) == [tool.name for tool in listed[:4]]
    assert [tool.name for tool, _ in dropped] == [tool.name for tool in listed[4:10]]

    window["usable"] = 400  # back to the larger one: those that fit again are offered again
    assert [tool.name for tool, _ in admission.decide(listed)] == [
        "mcp__docs__t10",
        "mcp__docs__t11",
    ]
    assert sorted(admission.offered) == sorted(tool.name for tool in listed[:10])
