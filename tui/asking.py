"""The questions a turn asks the user in a modal: approve a call, review a plan, the model's own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from tui import attention
from tui.host import Host

if TYPE_CHECKING:
    from agent.permissions.plan_mode import PlanVerdict
    from agent.permissions.policy import ApprovalRequest
    from agent.session.asking import Answer
    from tools.ask_user import Question, Reply


async def ask_approval(app: Host, request: ApprovalRequest) -> Answer:
    """Show the approval modal from the turn's worker and wait for the answer."""
    from tui.screens.approval import ApprovalScreen

    answer: Answer = await modal(app, ApprovalScreen(request), f"approve {request.tool}?")
    return answer


async def review_plan(app: Host, plan: str) -> PlanVerdict:
    """Plan mode's exit_plan_mode: the plan in the conversation, then accept it or not."""
    from agent.terminal_text import visible
    from tui.screens.plan import PlanScreen

    await app.conversation.add_markdown(visible(plan), "plan")
    verdict: PlanVerdict = await modal(app, PlanScreen(plan), "review the plan")
    return verdict


async def ask_user(app: Host, question: Question) -> Reply | None:
    """The model's question (ask_user): its options, or an answer typed; None: none given."""
    from tui.screens.ask_user import AskUserScreen

    reply: Reply | None = await modal(app, AskUserScreen(question), "answer the question")
    return reply


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
