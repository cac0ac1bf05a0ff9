"""What a server opted into the sandbox says when the sandbox refused it something: at its start
(its stderr) or in a tool's error result, one line naming what was refused and the way out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tools.sandbox.denials import OPTED_IN, sandbox_cause
from tools.sandbox.policy import Sandbox

if TYPE_CHECKING:
    from mcp_types import CallToolResult


def failed_start(what: str, stderr: Sequence[str], confined: Sandbox | None) -> str:
    """Why a server failed, with the sandbox's part when its stderr shows one."""
    cause = sandbox_cause("\n".join(stderr), confined) if confined is not None else None
    return what if cause is None else f"{what}; the sandbox refused it {cause}: {OPTED_IN}"


def with_sandbox_note(
    name: str, result: CallToolResult, confined: Sandbox | None
) -> CallToolResult:
    """A confined server's failed call whose words show the sandbox refused it something (a
    write, a connection), with a line saying so and how to let it out."""
    if confined is None or not result.is_error:
        return result
    words = "\n".join(str(getattr(item, "text", "")) for item in result.content)
    cause = sandbox_cause(words, confined)
    if cause is None:
        return result
    from mcp_types import TextContent

    note = f"[pleat: the sandbox refused the MCP server {name} {cause}: {OPTED_IN}]"
    return result.model_copy(
        update={"content": [*result.content, TextContent(type="text", text=note)]}
    )
