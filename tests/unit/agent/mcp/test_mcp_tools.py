"""MCP tools as pleat tools: names in the providers' charset, schemas checked, arguments validated,
results (text, images, resources) converted, rules by tool or server, the registry's join."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from mcp_types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from mcp_types import Tool as ListedTool

from agent.images.parts import Attachments
from agent.mcp.names import MAX_TOOL_NAME_CHARS, tool_name
from agent.mcp.results import EMPTY, MAX_RESULT_CHARS, tool_output
from agent.mcp.tool import MAX_DESCRIPTION_CHARS, MAX_SCHEMA_CHARS, McpTool, adapt
from agent.permissions.policy import Permissions
from sessions.image_store import SessionImages
from tests.support.images import png
from tools.base import ToolContext, ToolError
from tools.read_file import ReadFileTool
from tools.registry import ToolRegistry, validate_arguments

OBJECT = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


async def never(remote: str, arguments: dict[str, Any]) -> CallToolResult:
    raise AssertionError("not called")


def listed(name: str = "search", schema: Any = OBJECT, description: str | None = "Find.") -> Any:
    return ListedTool(name=name, description=description, input_schema=schema)


def made(server: str = "docs", item: Any = None) -> McpTool:
    tool = adapt(server, item or listed(), set(), never)
    assert isinstance(tool, McpTool)
    return tool


# -- names --------------------------------------------------------------------------------


def test_names_are_in_the_providers_charset_length_and_stable() -> None:
    assert tool_name("docs", "search") == "mcp__docs__search"
    assert tool_name("my.docs", "find files") == "mcp__my_docs__find_files"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == MAX_TOOL_NAME_CHARS and long == tool_name("s" * 40, "t" * 40)
    assert long != tool_name("s" * 40, "t" * 39 + "u")  # the hash tells them apart
    clash = tool_name("my_docs", "find", taken={"mcp__my_docs__find"})
    assert clash.startswith("mcp__my_docs__find_") and len(clash) == len("mcp__my_docs__find") + 9
    assert all(c.isalnum() or c in "_-" for c in tool_name("ü/é", "☃ tool"))


# -- schemas and arguments ----------------------------------------------------------------


def test_a_tool_keeps_its_schema_and_description() -> None:
    tool = made()
    schema = tool.schema()["function"]
    assert schema == {"name": "mcp__docs__search", "description": "Find.", "parameters": OBJECT}
    assert not tool.read_only and tool.main_argument is None
    assert tool.writes({"q": "x"}) is None  # unknown: /undo uses a git snapshot
    assert tool.rule_aliases == ("mcp__docs",)


def test_schemas_that_are_not_objects_or_are_huge_are_refused_with_a_note() -> None:
    assert adapt("d", listed(schema={"type": "string"}), set(), never) == (
        "tool 'search' is not offered: its input schema is not a JSON object schema"
    )
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(900)}}
    note = adapt("d", listed(schema=huge), set(), never)
    assert isinstance(note, str) and f"over {MAX_SCHEMA_CHARS:,}" in note
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(70):
        deep = {"type": "object", "properties": {"x": deep}}
    note = adapt("d", listed(schema=deep), set(), never)
    assert isinstance(note, str) and "nested over 64 levels" in note


def test_a_long_description_is_cut() -> None:
    tool = made(item=listed(description="word " * 1000))
    assert len(tool.description) == MAX_DESCRIPTION_CHARS and tool.description.endswith("…")
    assert made(item=listed(description=None)).description == "search"


def test_arguments_are_checked_and_unlisted_ones_pass_as_json_schema_says() -> None:
    tool = made()
    assert validate_arguments(tool, '{"q": "x", "limit": 3}') == {"q": "x", "limit": 3}
    with pytest.raises(ToolError, match="missing required argument 'q'"):
        validate_arguments(tool, "{}")
    with pytest.raises(ToolError, match="argument 'q' of mcp__docs__search must be a string"):
        validate_arguments(tool, '{"q": 1}')
    closed = made(item=listed(schema={**OBJECT, "additionalProperties": False}))
    with pytest.raises(ToolError, match="unknown argument 'limit'"):
        validate_arguments(closed, '{"q": "x", "limit": 3}')


async def test_the_approval_shows_the_server_the_tool_and_the_arguments(workspace: Path) -> None:
    preview = await made().preview({"q": "needle"}, ToolContext(workspace))
    assert preview == 'the tool search of the MCP server docs, with:\n{\n  "q": "needle"\n}'


# -- results ------------------------------------------------------------------------------


def context(workspace: Path, support: str | None = None) -> ToolContext:
    images = Attachments(SessionImages(workspace.parent / "images"), lambda: support)
    return ToolContext(workspace, images=images)


async def test_text_resources_and_links_become_text(workspace: Path) -> None:
    result = CallToolResult(
        content=[
            TextContent(text="first"),
            EmbeddedResource(
                resource=TextResourceContents(uri="file:///a.md", text="# A", mime_type=None)
            ),
            EmbeddedResource(
                resource=BlobResourceContents(
                    uri="file:///a.bin", blob=base64.b64encode(b"\0" * 300).decode(),
                    mime_type="application/zip",
                )
            ),
            ResourceLink(uri="file:///b.md", name="b", description="the b file"),
        ]
    )  # fmt: skip
    output = await tool_output(result, context(workspace), "mcp__docs__get")
    assert output.text == (
        "first\n[resource file:///a.md]\n# A\n"
        "[resource file:///a.bin (application/zip, 300 bytes of binary data): not shown]\n"
        "[resource link file:///b.md (b): the b file]"
    )
    assert not output.is_error and output.images == ()


async def test_an_error_result_is_an_error_output(workspace: Path) -> None:
    result = CallToolResult(content=[TextContent(text="no such page")], is_error=True)
    output = await tool_output(result, context(workspace), "t")
    assert output.is_error and output.text == "no such page"
    empty = await tool_output(CallToolResult(content=[]), context(workspace), "t")
    assert empty.text == EMPTY
    structured = CallToolResult(content=[], structured_content={"n": 1})
    assert json.loads((await tool_output(structured, context(workspace), "t")).text) == {"n": 1}


async def test_an_image_is_attached_when_the_model_takes_images(workspace: Path) -> None:
    data = base64.b64encode(png(5, 4)).decode()
    result = CallToolResult(content=[ImageContent(data=data, mime_type="image/png")])
    output = await tool_output(result, context(workspace), "mcp__ui__shot")
    assert output.text == (
        "[mcp__ui__shot image 1: PNG 5×4, attached for you to see in the message after the tool "
        "results]"
    )
    (image,) = output.images
    assert (image.width, image.height, image.media_type) == (5, 4, "image/png")
    refused = await tool_output(result, context(workspace, "this model takes no images"), "s")
    assert refused.images == () and refused.text.endswith("not shown: this model takes no images]")


async def test_bad_or_foreign_images_are_described(workspace: Path) -> None:
    bad = CallToolResult(content=[ImageContent(data="%%%", mime_type="image/png")])
    assert "not valid base64" in (await tool_output(bad, context(workspace), "s")).text
    text = base64.b64encode(b"not an image at all").decode()
    odd = CallToolResult(content=[ImageContent(data=text, mime_type="image/png")])
    assert "not a PNG, JPEG, GIF or WebP" in (await tool_output(odd, context(workspace), "s")).text


async def test_a_runaway_result_is_capped_before_the_budget(workspace: Path) -> None:
    result = CallToolResult(content=[TextContent(text="x" * (MAX_RESULT_CHARS + 10))])
    output = await tool_output(result, context(workspace), "s")
    assert output.text.endswith("[... 10 characters of the result not kept]")


# -- rules and the registry ---------------------------------------------------------------


def test_rules_name_a_tool_or_its_whole_server(workspace: Path) -> None:
    tool = made()
    by_tool = Permissions("ask", allow=[], deny=[])
    assert by_tool.decide(tool, {"q": "x"}, workspace).action == "ask"
    for allow in ("mcp__docs__search", "mcp__docs"):
        rules = Permissions.from_settings("ask", [allow], [])
        assert rules.decide(tool, {"q": "x"}, workspace).action == "run"
    assert (
        Permissions.from_settings("ask", ["mcp__other"], []).decide(tool, {}, workspace).action
        == "ask"
    )
    denied = Permissions.from_settings("full-auto", [], ["mcp__docs"]).decide(tool, {}, workspace)
    assert denied.action == "refuse" and 'denied by the rule "mcp__docs"' in denied.reason
    asked = by_tool.decide(tool, {}, workspace)
    assert [str(rule) for rule in asked.always] == ["mcp__docs__search"]


def test_rules_for_mcp_tools_not_started_yet_are_not_problems() -> None:
    registry = ToolRegistry([ReadFileTool()])
    rules = Permissions.from_settings("ask", ["mcp__docs", "nothing_like_it"], [])
    problems = rules.rule_problems(registry)
    assert len(problems) == 1 and "nothing_like_it" in problems[0]


class Source:
    def __init__(self) -> None:
        self.tools: list[McpTool] = []

    def available_tools(self) -> list[McpTool]:
        return self.tools


def test_joined_tools_come_sorted_after_pleats_own_and_only_at_a_sync() -> None:
    registry = ToolRegistry([ReadFileTool()])
    source = Source()
    registry.add_source(source)
    changes: list[int] = []
    registry.on_change(lambda: changes.append(len(registry.names())))
    assert not registry.sync()
    source.tools.append(made("zeta"))
    assert registry.names() == ["read_file"]  # nothing changes until the next sync
    assert registry.sync()
    source.tools.append(made("alpha"))
    assert registry.sync() and not registry.sync()
    assert registry.names() == ["read_file", "mcp__alpha__search", "mcp__zeta__search"]
    assert [s["function"]["name"] for s in registry.schemas()] == registry.names()
    assert changes == [2, 3]
    assert registry.get("mcp__alpha__search") is source.tools[1]
