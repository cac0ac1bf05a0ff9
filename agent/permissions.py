"""Approval of side-effecting tool calls: an injected async callback decides (TUI modal, --yes)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ApprovalRequest:
    """What the user is asked to approve: the call and its preview (a diff, or the command)."""

    tool: str
    arguments: dict[str, Any]
    preview: str


@dataclass(frozen=True)
class Decision:
    approved: bool
    reason: str = ""


Approver = Callable[[ApprovalRequest], Awaitable[Decision]]


async def approve_all(request: ApprovalRequest) -> Decision:
    """Headless with --yes: every call is approved."""
    return Decision(True)


async def refuse_headless(request: ApprovalRequest) -> Decision:
    """Headless without --yes: nobody can be asked, so side effects are refused, with the fix."""
    return Decision(
        False,
        f"pleat runs headless without --yes, so {request.tool} cannot be approved; "
        "the user can rerun with --yes to allow writes, edits and commands",
    )
