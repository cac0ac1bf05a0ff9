"""The task list todo_write keeps: its items, their checks, and the list a history holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sessions.lone_surrogates import has_lone_surrogate
from sessions.messages import Message, is_summary
from tools.base import ToolError

# The tool's name (a contract of issue 15) and the summary message's meta key for the list.
TODO_TOOL_NAME = "todo_write"
SUMMARY_KEY = "todos"

TodoStatus = Literal["pending", "in_progress", "done"]
STATUSES: tuple[TodoStatus, ...] = ("pending", "in_progress", "done")
# Other spellings of a status that models send: Claude Code's TodoWrite says "completed", and
# "in progress" / "in-progress" are the obvious slips. Anything else is refused, with the words.
STATUS_ALIASES: dict[str, TodoStatus] = {
    "completed": "done",
    "complete": "done",
    "in progress": "in_progress",
    "in-progress": "in_progress",
}
# Items in one list: a plan of more steps than this is a project, not a task list; and the list
# rides in every summary message, so it must stay small (50 items of 200 characters: ~3k tokens).
MAX_TODOS = 50
# Characters of one item (after its whitespace is collapsed): a task is one line, an imperative
# sentence; Claude Code's items run 20-80 characters.
MAX_TODO_CHARS = 200
# Characters of an offending status quoted back in an error: enough to recognise it.
MAX_QUOTED_CHARS = 40


@dataclass(frozen=True)
class TodoItem:
    """One task: what to do (one line) and where it stands."""

    content: str
    status: TodoStatus

    def to_dict(self) -> dict[str, str]:
        return {"content": self.content, "status": self.status}


def _status(value: Any, number: int) -> TodoStatus:
    if not isinstance(value, str):
        raise ToolError(f'todo {number} needs a status: "pending", "in_progress" or "done"')
    word = value.strip().lower()
    for status in STATUSES:
        if word == status:
            return status
    if word in STATUS_ALIASES:
        return STATUS_ALIASES[word]
    quoted = value[:MAX_QUOTED_CHARS]
    raise ToolError(f'todo {number} has status {quoted!r}: use "pending", "in_progress" or "done"')


def parse_todos(value: Any) -> list[TodoItem]:
    """A task list as the model sent it (or as a summary's meta kept it), checked and bounded:
    each item's whitespace collapsed to one line; other keys of an item (Claude Code's
    activeForm, id, priority) ignored. Raises ToolError with one line naming the bad item."""
    if not isinstance(value, list):
        raise ToolError("todos must be an array of {content, status} items")
    if len(value) > MAX_TODOS:
        raise ToolError(
            f"todos holds {len(value)} items; at most {MAX_TODOS}: merge small steps into one"
        )
    items: list[TodoItem] = []
    for number, raw in enumerate(value, 1):
        if not isinstance(raw, dict):
            raise ToolError(f"todo {number} must be an object with content and status")
        content = raw.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ToolError(f"todo {number} needs a content: a non-empty string")
        text = " ".join(content.split())
        if len(text) > MAX_TODO_CHARS:
            raise ToolError(
                f"todo {number} is {len(text):,} characters; at most {MAX_TODO_CHARS}: "
                "one line per task"
            )
        if has_lone_surrogate(text):
            raise ToolError(f"todo {number} holds an invalid character (a lone UTF-16 surrogate)")
        items.append(TodoItem(text, _status(raw.get("status"), number)))
    return items


def counts(items: Sequence[TodoItem]) -> str:
    """ "1 done, 1 in progress, 2 pending" (statuses with no item left out)."""
    words = {"pending": "pending", "in_progress": "in progress", "done": "done"}
    parts = [
        f"{sum(1 for item in items if item.status == status)} {words[status]}"
        for status in ("done", "in_progress", "pending")
        if any(item.status == status for item in items)
    ]
    return ", ".join(parts) or "empty"


def render_todos(items: Sequence[TodoItem]) -> str:
    """The list as the model reads it in a summary message: one item a line, its status in the
    words todo_write takes."""
    return "\n".join(f"- [{item.status}] {item.content}" for item in items)


def _from_call(arguments: dict[str, Any]) -> list[TodoItem] | None:
    try:
        return parse_todos(arguments.get("todos"))
    except ToolError:
        return None


def current_todos(history: Sequence[Message]) -> list[TodoItem] | None:
    """The task list a history holds: the list of its newest todo_write call that succeeded
    (a call whose result is an error, cancelled or still missing changed nothing), else the
    list the summary message at its head carries, else None (no list was ever written). A
    summary whose list is malformed (a hand-edited journal) carries none."""
    results: dict[str, Message] = {}
    for message in reversed(history):
        if message.role == "tool" and message.tool_call_id:
            results.setdefault(message.tool_call_id, message)
        elif message.role == "assistant":
            for call in reversed(message.tool_calls):
                result = results.get(call.id)
                if call.name != TODO_TOOL_NAME or result is None or result.meta.get("is_error"):
                    continue
                items = _from_call(call.parsed_arguments())
                if items is not None:
                    return items
        elif is_summary(message) and SUMMARY_KEY in message.meta:
            try:
                return parse_todos(message.meta[SUMMARY_KEY])
            except ToolError:
                return None
    return None
