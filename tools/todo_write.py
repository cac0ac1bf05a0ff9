"""The todo_write tool: the model keeps a task list for multi-step work (a call replaces it)."""

from __future__ import annotations

from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.todo_list import STATUSES, SUMMARY_KEY, TODO_TOOL_NAME, counts, parse_todos

# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
# Lean, as it rides in every request: the bounds (tools.todo_list) are checked by code, and a
# list past them is refused with the bound in one line.
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string"},
                    "status": {"type": "string", "enum": list(STATUSES)},
                },
                "required": ["content", "status"],
            },
        },
    },
    "required": ["todos"],
    "additionalProperties": False,
}


class TodoWriteTool(Tool):
    """Replace the session's task list; the list lives in the history (the call is its record),
    is shown pinned in the TUI and is carried into every summary message by compaction."""

    name = TODO_TOOL_NAME
    description = "Replace the task list of multi-step work (send the whole list, in order)."
    parameters = _PARAMETERS
    # It changes nothing on the user's machine (the list is part of the conversation): it runs
    # without approval, in every permission mode.
    read_only = True

    def describe_call(self, args: dict[str, Any]) -> str:
        try:
            items = parse_todos(args.get("todos"))
        except ToolError:
            return f"{self.name}(?)"
        plural = "" if len(items) == 1 else "s"
        return f"{self.name}({len(items)} task{plural}: {counts(items)})"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        items = parse_todos(args["todos"])
        text = (
            f"Task list updated: {counts(items)}. Keep it current: mark a task in_progress when "
            "you start it and done when it is finished."
        )
        return ToolOutput(text, meta={SUMMARY_KEY: [item.to_dict() for item in items]})
