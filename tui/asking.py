"""The terminal's side of the asking protocol (agent/session/asking.py): every question a session
puts, as a modal (approve a call, review a plan, the model's own question, a project's files)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from tui import attention
from tui.host import Host

if TYPE_CHECKING:
    from agent.permissions.plan_mode import PlanVerdict
    from agent.permissions.policy import ApprovalRequest
    from agent.session.asking import Answer
    from agent.session.project_questions import ProjectQuestion
    from tools.ask_user import Question, Reply


class TerminalAsking:
    """Asks in modals over the app (agent.session.asking.Asking)."""

    def __init__(self, app: Host) -> None:
        self.app = app

    async def approve(self, request: ApprovalRequest) -> Answer:
        """Show the approval modal from the turn's worker and wait for the answer."""
        from tui.screens.approval import ApprovalScreen

        answer: Answer = await modal(self.app, ApprovalScreen(request), f"approve {request.tool}?")
        return answer

    async def review_plan(self, plan: str) -> PlanVerdict:
        """Plan mode's exit_plan_mode: the plan in the conversation, then accept it or not."""
        from agent.terminal_text import visible
        from tui.screens.plan import PlanScreen

        await self.app.conversation.add_markdown(visible(plan), "plan")
        verdict: PlanVerdict = await modal(self.app, PlanScreen(plan), "review the plan")
        return verdict

    async def ask_user(self, question: Question) -> Reply | None:
        """The model's question (ask_user): its options, or an answer typed; None: none given."""
        from tui.screens.ask_user import AskUserScreen

        reply: Reply | None = await modal(self.app, AskUserScreen(question), "answer the question")
        return reply

    async def approve_project(self, question: ProjectQuestion) -> bool:
        """A project's files (hooks, settings, .mcp.json) or a plugin's parts: run them or not."""
        from tui.screens.project_approval import approval_screen

        return bool(await self.app.ask_screen(approval_screen(question)))


async def modal(app: Host, screen: Screen[Any], state: str) -> Any:
    """Show a modal from the turn's worker and wait for its answer; the status says what it
    waits for. Cancelled (Esc), the modal goes away with the question."""
    previous = app.status.state
    app.status.state = state
    attention.call_attention(app, f"pleat: {state}", "permission_prompt")  # away: called back
    try:
        return await app.ask_screen(screen)  # cancelled, it takes the screen away
    finally:
        app.status.state = previous
