"""The registry: schemas, argument validation, and a dispatch that turns failures into text."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from sessions.messages import ToolCall
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.call_summary import SHOWN_ARGUMENTS, SHOWN_VALUE_CHARS
from tools.registry import ToolRegistry, default_registry, validate_arguments

ALL_TOOLS = [
    "read_file",
    "list_dir",
    "glob",
    "grep",
    "edit_file",
    "write_file",
    "run_command",
    "command_output",
    "command_stop",
    "todo_write",
    "web_fetch",
]


class Echo(Tool):
    """A tool with every argument type, echoing what it was given."""

    name = "echo"
    description = "Echo the arguments."
    parameters: dict[str, Any] = {  # noqa: RUF012 - a test double
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "count": {"type": "integer", "minimum": 0, "maximum": 5},
            "ratio": {"type": "number"},
            "loud": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "extra": {"type": "object"},
            "mode": {"type": "string", "enum": ["a", "b"]},
        },
        "required": ["text"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(repr(sorted(args.items())))


class Broken(Tool):
    """A tool whose behaviour is chosen by its argument."""

    name = "broken"
    description = "Fail in the way asked."
    parameters: dict[str, Any] = {  # noqa: RUF012 - a test double
        "type": "object",
        "properties": {"how": {"type": "string"}},
        "required": ["how"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        if args["how"] == "tool-error":
            raise ToolError("the file is locked")
        if args["how"] == "bug":
            raise KeyError("oops")
        if args["how"] == "cancel":
            raise asyncio.CancelledError
        await asyncio.sleep(3600)
        return ToolOutput("never")


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([Echo(), Broken()])


def test_default_registry_has_every_tool_with_a_schema() -> None:
    registry = default_registry()
    assert registry.names() == ALL_TOOLS
    for schema, name in zip(registry.schemas(), ALL_TOOLS, strict=True):
        assert schema["type"] == "function"
        assert schema["function"]["name"] == name
        assert schema["function"]["description"]
        assert schema["function"]["parameters"]["type"] == "object"
    assert registry.get("grep") is not None
    assert registry.get("nope") is None
    read_only = {name for name in ALL_TOOLS if registry.get(name).read_only}  # type: ignore[union-attr]
    # todo_write changes nothing on the machine (the list is in the conversation), nor do
    # reading and stopping pleat's own background commands: no approval.
    assert read_only == {
        "read_file",
        "list_dir",
        "glob",
        "grep",
        "todo_write",
        "command_output",
        "command_stop",
    }


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        ToolRegistry([Echo(), Echo()])


def test_a_call_is_one_short_line_with_json_literals(registry: ToolRegistry) -> None:
    given = {"text": "it's\x1b[2J", "count": 3, "ratio": 0.5, "loud": True, "tags": ["a", 1]}
    line = registry.describe(ToolCall("c1", "echo", json.dumps({**given, "extra": None})))
    assert line == (
        """echo(text="it's\\x1b[2J", count=3, ratio=0.5, loud=true, tags=["a", 1], extra=null)"""
    )
    long = registry.describe(
        ToolCall("c2", "echo", json.dumps({"text": "x" * 500, "tags": ["y" * 500]}))
    )
    assert long == f"echo(text='{'x' * 59}…', tags=[\"{'y' * 57}…)"


def test_a_crafted_call_is_described_within_bounds(registry: ToolRegistry) -> None:
    crafted = {f"k{n}{'z' * 500}": "v" * 500 for n in range(1_000)}
    line = registry.describe(ToolCall("c1", "echo", json.dumps(crafted)))
    assert line.endswith(f", … {1_000 - SHOWN_ARGUMENTS} more)")
    assert len(line) < SHOWN_ARGUMENTS * (2 * SHOWN_VALUE_CHARS + 6) + 30


async def test_unknown_tool_lists_the_available_ones(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    out = await registry.dispatch("rm_rf", "{}", ctx)
    assert out.is_error
    assert out.text == "unknown tool 'rm_rf'; available tools: echo, broken"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"text": ', "arguments for echo are not valid JSON"),
        ('["text"]', "arguments for echo must be a JSON object, got array"),
        ("{}", "missing required argument 'text' for echo"),
        ('{"text": 3}', "argument 'text' of echo must be a string, got integer 3"),
        ('{"text": "a", "count": "2"}', "argument 'count' of echo must be an integer, got string"),
        ('{"text": "a", "count": 2.5}', "must be an integer, got number 2.5"),
        ('{"text": "a", "count": true}', "must be an integer, got boolean true"),
        ('{"text": "a", "count": 9}', "argument 'count' of echo must be at most 5, got 9"),
        ('{"text": "a", "loud": "yes"}', "argument 'loud' of echo must be a boolean"),
        ('{"text": "a", "tags": ["x", 1]}', "item 1 of argument 'tags' of echo must be a string"),
        ('{"text": "a", "mode": "c"}', 'argument \'mode\' of echo must be one of "a", "b"'),
        ('{"text": "a", "colour": "red"}', "unknown argument 'colour' for echo (expected"),
        ('{"text": null}', "missing required argument 'text' for echo"),
    ],
)
async def test_bad_arguments_become_clear_errors(
    registry: ToolRegistry, ctx: ToolContext, raw: str, message: str
) -> None:
    out = await registry.dispatch("echo", raw, ctx)
    assert out.is_error
    assert message in out.text
    with pytest.raises(ToolError):
        validate_arguments(Echo(), raw)


def test_valid_arguments_are_normalised() -> None:
    raw = '{"text": "a", "count": 3.0, "ratio": 1, "loud": false, "extra": {}, "mode": null}'
    assert validate_arguments(Echo(), raw) == {
        "text": "a",
        "count": 3,
        "ratio": 1,
        "loud": False,
        "extra": {},
    }
    assert validate_arguments(Echo(), {"text": "b"}) == {"text": "b"}
    assert validate_arguments(default_registry().get("list_dir"), "") == {}  # type: ignore[arg-type]


async def test_tool_errors_and_bugs_become_error_outputs(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    failed = await registry.dispatch("broken", '{"how": "tool-error"}', ctx)
    assert (failed.text, failed.is_error) == ("the file is locked", True)
    crashed = await registry.dispatch("broken", '{"how": "bug"}', ctx)
    assert (crashed.text, crashed.is_error) == ("internal error in broken: KeyError: 'oops'", True)


async def test_cancellation_propagates(registry: ToolRegistry, ctx: ToolContext) -> None:
    with pytest.raises(asyncio.CancelledError):
        await registry.dispatch("broken", '{"how": "cancel"}', ctx)
    task = asyncio.create_task(registry.dispatch("broken", '{"how": "hang"}', ctx))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_dispatch_runs_real_tools(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "hello.txt").write_text("hi\n")
    registry = default_registry()
    out = await registry.dispatch("read_file", '{"path": "hello.txt"}', ctx)
    assert out.text == "     1\thi"
    refused = await registry.dispatch("read_file", '{"path": "../outside.txt"}', ctx)
    assert refused.is_error
    assert "outside the workspace" in refused.text
    too_long = await registry.dispatch("run_command", '{"command": "true", "timeout": 601}', ctx)
    assert too_long.is_error
    assert "at most 600" in too_long.text
