"""The editor's side of the asking protocol: an answer pleat never offered is no answer, an editor
that cannot ask refuses, and a question about no tool call is a call of its own that ends."""

from __future__ import annotations

from typing import Any

from acp import RequestError
from acp.schema import AllowedOutcome, RequestPermissionResponse

from agent.acp.asking import EditorAsking
from agent.permissions.policy import ApprovalRequest
from tools.ask_user import Question


class Editor:
    """An editor that answers every question with `answer` (an option id, or an error)."""

    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer
        self.updates: list[Any] = []

    async def request_permission(self, **_: Any) -> RequestPermissionResponse:
        if isinstance(self.answer, Exception):
            raise self.answer
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    async def session_update(self, session_id: str, update: Any) -> None:
        self.updates.append(update)


def asking(editor: Editor) -> EditorAsking:
    return EditorAsking(editor, lambda: "s1", {})  # type: ignore[arg-type]


async def test_an_option_never_offered_is_no_answer() -> None:
    editor = Editor("option-x")
    reply = await asking(editor).ask_user(Question("which?", ("a", "b")))
    assert reply is None
    started, ended = editor.updates  # the question was a call of its own, and it ended
    assert started.tool_call_id == ended.tool_call_id and ended.status in ("completed", "failed")


async def test_a_chosen_option_is_the_reply() -> None:
    reply = await asking(Editor("option-1")).ask_user(Question("which?", ("a", "b")))
    assert reply is not None and (reply.text, reply.option) == ("b", 1)


async def test_an_editor_that_cannot_ask_means_no() -> None:
    request = ApprovalRequest("write_file", {"path": "a"}, "diff")
    answer = await asking(Editor(RequestError.method_not_found("x"))).approve(request)
    assert answer == "no"
    assert await asking(Editor(ConnectionError("gone"))).approve(request) == "no"
