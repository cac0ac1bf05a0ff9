"""How a front end is asked (the TUI's modal today): the approvals, with the mode and rules they
change ("always"), plan reviews and the model's questions, behind one object the agent calls."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from agent.permissions.policy import ApprovalRequest, Decision, Permissions

if TYPE_CHECKING:
    from agent.permissions.plan_mode import PlanReviewer
    from tools.ask_user import UserAsker

# What the user can answer when asked to approve one call.
Answer = Literal["yes", "no", "always"]
Ask = Callable[[ApprovalRequest], Awaitable[Answer]]

# Why a call was refused, as the model reads it after "refused: the user did not approve X: ".
REFUSAL_REASON = "the user said no"


class SessionApprovals:
    """The agent's approver in the TUI: asks the user (a modal) about the calls the mode and the
    rules leave to ask; "always" adds the request's rules to the session's. Holds the
    permissions the agent reads (the app changes their mode: Shift+Tab) and the plan review."""

    def __init__(
        self,
        ask: Ask,
        review_plan: PlanReviewer,
        permissions: Permissions,
        ask_user: UserAsker,
    ) -> None:
        self._ask = ask
        self.review_plan: PlanReviewer = review_plan
        self.permissions = permissions
        self.ask_user: UserAsker = ask_user  # the model's questions (tools/ask_user.py)

    async def __call__(self, request: ApprovalRequest) -> Decision:
        answer = await self._ask(request)
        if answer == "always" and request.always:
            self.permissions.remember(request.always)
        if answer == "yes" or (answer == "always" and request.always):
            return Decision(True)
        return Decision(False, REFUSAL_REASON)
