"""Session approval policy: --yes, "always" per tool name, otherwise ask the user (a modal)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from agent.permissions import ApprovalRequest, Decision

# What the user can answer when asked to approve one call.
Answer = Literal["yes", "no", "always"]
Ask = Callable[[ApprovalRequest], Awaitable[Answer]]

# Why a call was refused, as the model reads it after "refused: the user did not approve X: ".
REFUSAL_REASON = "the user said no"


class SessionApprovals:
    """The agent's approver for one TUI session: remembers tools the user always allows."""

    def __init__(self, ask: Ask, *, approve_everything: bool = False) -> None:
        self._ask = ask
        self.approve_everything = approve_everything
        self.always: set[str] = set()

    async def __call__(self, request: ApprovalRequest) -> Decision:
        if self.approve_everything or request.tool in self.always:
            return Decision(True)
        answer = await self._ask(request)
        if answer == "always":
            self.always.add(request.tool)
        if answer in ("yes", "always"):
            return Decision(True)
        return Decision(False, REFUSAL_REASON)
