"""The editor's side of the asking protocol (agent/session/asking.py): every question a session
puts becomes a session/request_permission the editor shows, with ACP's four options."""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from agent.acp.tool_calls import text_content
from agent.permissions.plan_mode import PlanVerdict
from agent.terminal_text import visible
from tools.ask_user import Reply

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent.permissions.policy import ApprovalRequest
    from agent.session.asking import Answer
    from agent.session.project_questions import ProjectQuestion
    from tools.ask_user import Question

log = logging.getLogger("pleat.acp")

# The options of an approval, by the answer each one gives (agent/session/asking.py Answer).
ALLOW_ONCE = PermissionOption(option_id="allow", name="Allow", kind="allow_once")
ALLOW_ALWAYS = PermissionOption(
    option_id="allow-always", name="Allow always (this session)", kind="allow_always"
)
REJECT_ONCE = PermissionOption(option_id="reject", name="Reject", kind="reject_once")
REJECT_ALWAYS = PermissionOption(
    option_id="reject-always", name="Reject always (this session)", kind="reject_always"
)
ANSWERS: dict[str, Answer] = {
    "allow": "yes",
    "allow-always": "always",
    "reject": "no",
    "reject-always": "never",
}
# A plan review: accept it (and go on in accept-edits, as the terminal's "yes" does), or keep
# planning.
PLAN_OPTIONS = [
    PermissionOption(option_id="accept", name="Accept the plan", kind="allow_once"),
    PermissionOption(option_id="keep-planning", name="Keep planning", kind="reject_once"),
]
# A project's files or a plugin's parts: run them (remembered for this content) or not now.
PROJECT_OPTIONS = [
    PermissionOption(option_id="use", name="Use them", kind="allow_once"),
    PermissionOption(option_id="not-now", name="Not now", kind="reject_once"),
]
# The option id of "no answer" to the model's own question.
DISMISS = "dismiss"


def call_key(tool: str, arguments: dict[str, Any]) -> str:
    """What ties a request to the tool call it is about: the tool and its arguments."""
    return tool + "\0" + json.dumps(arguments, sort_keys=True, default=str)


class EditorAsking:
    """Asks the editor (agent.session.asking.Asking) through session/request_permission. An
    approval names the tool call it is about (`open_calls`: the calls started and not ended,
    kept by the session), so the editor shows the question on that call."""

    def __init__(
        self, client: Client, session_id: Callable[[], str], open_calls: dict[str, str]
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.open_calls = open_calls

    async def _choose(
        self, title: str, body: str, options: list[PermissionOption], call_id: str | None = None
    ) -> str | None:
        """The option the editor's user picked; None when the prompt was cancelled or the editor
        could not ask (an error answer, the connection gone). A question about no tool call is
        a call of its own in the editor: announced first, ended with the answer."""
        from acp import RequestError

        question = call_id is None
        shown_id = call_id or f"question-{uuid.uuid4().hex[:12]}"
        content = text_content(body) if body else None
        picked: str | None = None
        try:
            if question:
                await self._update(
                    ToolCallStart(
                        session_update="tool_call",
                        tool_call_id=shown_id,
                        title=visible(title),
                        kind="think",
                        status="pending",
                        content=content,
                    )
                )
            update = ToolCallUpdate(tool_call_id=shown_id, title=visible(title), content=content)
            response = await self.client.request_permission(
                session_id=self.session_id(), tool_call=update, options=options
            )
            outcome = response.outcome
            picked = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        except (RequestError, ConnectionError) as error:
            log.warning("the editor could not ask %r: %s", title, error)
        finally:
            if question:
                ended = ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=shown_id,
                    status="completed" if picked is not None else "failed",
                )
                with contextlib.suppress(RequestError, ConnectionError):
                    await self._update(ended)
        return picked

    async def _update(self, update: ToolCallStart | ToolCallProgress) -> None:
        await self.client.session_update(session_id=self.session_id(), update=update)

    async def approve(self, request: ApprovalRequest) -> Answer:
        options = [ALLOW_ONCE, *([ALLOW_ALWAYS] if request.always else []), REJECT_ONCE]
        options.append(REJECT_ALWAYS)
        who = f"{request.asker}: " if request.asker else ""
        call_id = self.open_calls.get(call_key(request.tool, request.arguments))
        title = f"{who}{request.tool}"
        if request.always:
            title += f" (always allows {', '.join(request.always)})"
        picked = await self._choose(title, request.preview, options, call_id)
        return ANSWERS.get(picked or "", "no")

    async def review_plan(self, plan: str) -> PlanVerdict:
        picked = await self._choose("Accept this plan?", plan, PLAN_OPTIONS)
        if picked == "accept":
            return PlanVerdict("accepted")
        return PlanVerdict("keep_planning")

    async def ask_user(self, question: Question) -> Reply | None:
        options = [
            PermissionOption(option_id=f"option-{i}", name=visible(text), kind="allow_once")
            for i, text in enumerate(question.options)
        ]
        options.append(PermissionOption(option_id=DISMISS, name="No answer", kind="reject_once"))
        picked = await self._choose(question.text, "", options)
        if picked is None or not picked.startswith("option-"):
            return None
        try:
            index = int(picked.removeprefix("option-"))
        except ValueError:  # an option id pleat never offered: no answer
            return None
        if not 0 <= index < len(question.options):
            return None
        return Reply(question.options[index], option=index)

    async def approve_project(self, question: ProjectQuestion) -> bool:
        body = "\n\n".join([*question.items, question.note])
        return await self._choose(question.title, body, PROJECT_OPTIONS) == "use"
