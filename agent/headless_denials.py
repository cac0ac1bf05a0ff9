"""The calls a headless run's permission check refused, for the result's `permission_denials`.

The check (agent/permissions.py) answers a refused call with the line the model reads as its
result; these permissions keep each such line with its tool, so the report can tell a refused
call's result from a tool's own error by what it says, exactly.
"""

from __future__ import annotations

from typing import Any

from agent.permissions import Approver, Permissions
from tools.base import Tool, ToolContext


class DenialLog(Permissions):
    """Permissions that remember each refusal they give (the sub-agents' too: they share them)."""

    def __init__(self, permissions: Permissions) -> None:
        super().__init__(permissions.mode, permissions.allow, permissions.deny)
        self.refusals: list[tuple[str, str]] = []  # (tool, the line the model reads)

    async def check(
        self, tool: Tool, args: dict[str, Any], context: ToolContext, approve: Approver
    ) -> str | None:
        refusal = await super().check(tool, args, context, approve)
        if refusal is not None:
            self.refusals.append((tool.name, refusal))
        return refusal

    def take(self, tool: str, result: str) -> bool:
        """Whether a result of `tool` is one of the refusals (its line, then perhaps a note:
        agent/reply_calls.py), each taken once."""
        for index, (refused, line) in enumerate(self.refusals):
            if refused == tool and result.startswith(line):
                del self.refusals[index]
                return True
        return False
