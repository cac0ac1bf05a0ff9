"""An MCP server's tool as a pleat tool: its name and schema for the model, a call to its server.

An MCP tool is never read-only here (a server's `readOnlyHint` is its own claim, not something
pleat can check), so a call asks for approval like a command unless a permission rule allows
it: `mcp__docs__search` allows that tool, `mcp__docs` every tool of the server docs. Its
arguments are any JSON object, which no glob can match reliably, so it has no main argument.
Like a command, what it changes in the workspace is unknown: /undo takes it back from a git
snapshot (agent/turn/checkpoints.py).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agent.mcp.names import server_name, tool_name
from agent.mcp.results import tool_output
from sessions.model_json import MAX_DEPTH, nesting_depth
from tools.base import Tool, ToolContext, ToolOutput, function_schema
from tools.schema_keywords import schema_problem

if TYPE_CHECKING:
    from mcp_types import CallToolResult
    from mcp_types import Tool as ListedTool

# Characters of one tool's input schema: it rides along in every request, so a schema past
# 16,000 characters (about 4,000 tokens, the size of all of pleat's own tools together) is not
# offered: a chatty server must not fill the window before the conversation starts.
MAX_SCHEMA_CHARS = 16_000
# Characters of a tool's description sent to the model (the rest is cut): every request carries
# it; 2,000 is a long paragraph of usage notes.
MAX_DESCRIPTION_CHARS = 2_000
# Characters of a call's arguments shown in the approval prompt (it scrolls; past this the
# rest is counted): enough to read any ordinary call whole.
MAX_PREVIEW_CHARS = 20_000

# How a tool reaches its server: (the tool's name on the server, arguments) -> the result.
Caller = Callable[[str, dict[str, Any]], Awaitable["CallToolResult"]]


class McpTool(Tool):
    """A tool of an MCP server, called through it."""

    read_only = False

    def __init__(
        self,
        server: str,
        name: str,
        remote: str,
        description: str,
        schema: dict[str, Any],
        call: Caller,
    ) -> None:
        self.server = server
        self.name = name
        self.remote = remote  # the tool's own name, as the server knows it
        self.description = description
        self.input_schema = schema  # sent to the model as the server gave it
        # What pleat checks the arguments against: JSON Schema's default lets an object have
        # properties it does not list (pleat's own tools say additionalProperties: false).
        self.parameters = {"additionalProperties": True, **schema}
        self.rule_aliases = (server_name(server),)
        self._call = call
        # The model has called it: it never gives way to a tool a search found (admission.py).
        self.called = False

    def schema(self) -> dict[str, Any]:
        """The server's schema as it gave it (not `parameters`, which only pleat checks by)."""
        return function_schema(self.name, self.description, self.input_schema)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        body = json.dumps(args, ensure_ascii=False, indent=2)
        if len(body) > MAX_PREVIEW_CHARS:
            body = f"{body[:MAX_PREVIEW_CHARS]}\n… ({len(body) - MAX_PREVIEW_CHARS:,} more)"
        return f"the tool {self.remote} of the MCP server {self.server}, with:\n{body}"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        self.called = True
        result = await self._call(self.remote, args)
        return await tool_output(result, ctx, self.name)


def adapt(server: str, listed: ListedTool, taken: set[str], call: Caller) -> McpTool | str:
    """The pleat tool for one tool a server listed (its name not among `taken`), or why it is
    not offered to the model (one line)."""
    what = f"tool {listed.name!r}"
    schema = listed.input_schema
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return f"{what} is not offered: its input schema is not a JSON object schema"
    text = json.dumps(schema, ensure_ascii=False)
    if len(text) > MAX_SCHEMA_CHARS:
        return (
            f"{what} is not offered: its input schema is {len(text):,} characters, over "
            f"{MAX_SCHEMA_CHARS:,} (it would ride along in every request)"
        )
    if nesting_depth(text) > MAX_DEPTH:
        return f"{what} is not offered: its input schema is nested over {MAX_DEPTH} levels deep"
    if (problem := schema_problem(schema)) is not None:  # no call to it could be checked
        return f"{what} is not offered: its input schema is malformed: {problem}"
    description = (listed.description or listed.title or listed.name).strip()
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[: MAX_DESCRIPTION_CHARS - 1] + "…"
    name = tool_name(server, listed.name, taken)
    return McpTool(server, name, listed.name, description, schema, call)
