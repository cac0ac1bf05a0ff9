"""`pleat -p`'s side of the asking protocol (agent/session/asking.py): nobody is there, so a call
that would ask is refused with the fix, a plan is the answer, the model's question is answered at
once, and a project's files run only as --yes and the approvals kept say (decided before)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.permissions.plan_mode import review_headless
from agent.permissions.policy import Decision, refuse_headless
from tools.ask_user import nobody_to_ask

if TYPE_CHECKING:
    from agent.permissions.plan_mode import PlanVerdict
    from agent.permissions.policy import ApprovalRequest
    from agent.session.project_questions import ProjectQuestion
    from tools.ask_user import Question, Reply


class NobodyToAsk:
    """agent.session.asking.Asking for a headless run."""

    async def approve(self, request: ApprovalRequest) -> Decision:
        return await refuse_headless(request)

    async def review_plan(self, plan: str) -> PlanVerdict:
        return await review_headless(plan)

    async def ask_user(self, question: Question) -> Reply | None:
        return await nobody_to_ask(question)

    async def approve_project(self, question: ProjectQuestion) -> bool:
        return False  # --yes approved what it may when the run's parts were gathered
