"""The task list: todo_write's checks, the list a history holds, the summary message's section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.compaction.ledger import Ledger
from agent.compaction.policy import CompactionPolicy
from agent.compaction.rebuild import summary_message
from agent.config import Config
from agent.permissions.policy import approve_all
from sessions.messages import Message, ToolCall
from sessions.store import Session
from tools.base import ToolContext, ToolError
from tools.registry import default_registry
from tools.todo_list import (
    MAX_TODO_CHARS,
    MAX_TODOS,
    SUMMARY_KEY,
    TODO_TOOL_NAME,
    TodoItem,
    current_todos,
    parse_todos,
    render_todos,
)
from tools.todo_write import TodoWriteTool

PLAN = [
    {"content": "Read the parser", "status": "done"},
    {"content": "Fix the off-by-one", "status": "in_progress"},
    {"content": "Add a regression test", "status": "pending"},
]
PLAN_ITEMS = [
    TodoItem("Read the parser", "done"),
    TodoItem("Fix the off-by-one", "in_progress"),
    TodoItem("Add a regression test", "pending"),
]


# -- the checks of one list ----------------------------------------------------------------


def test_a_list_is_read_in_order() -> None:
    assert parse_todos(PLAN) == PLAN_ITEMS


def test_claude_codes_spellings_are_taken() -> None:
    """Models trained on Claude Code's TodoWrite say "completed" and send activeForm and id."""
    sent = [
        {"content": "a", "status": "completed", "activeForm": "Doing a", "id": "1"},
        {"content": "b", "status": "In Progress", "priority": "high"},
        {"content": "c", "status": "in-progress"},
    ]
    assert [item.status for item in parse_todos(sent)] == ["done", "in_progress", "in_progress"]


def test_an_item_is_one_line() -> None:
    items = parse_todos([{"content": "  fix\n the   parser\t", "status": "pending"}])
    assert items == [TodoItem("fix the parser", "pending")]


def test_an_empty_list_clears_it() -> None:
    assert parse_todos([]) == []


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("read the file", "todos must be an array"),
        ({"content": "a", "status": "done"}, "todos must be an array"),
        ([{"content": "a", "status": "done"}] * (MAX_TODOS + 1), f"at most {MAX_TODOS}"),
        (["read the file"], "todo 1 must be an object"),
        ([{"status": "pending"}], "todo 1 needs a content"),
        ([{"content": "  ", "status": "pending"}], "todo 1 needs a content"),
        ([{"content": 7, "status": "pending"}], "todo 1 needs a content"),
        ([{"content": "x" * (MAX_TODO_CHARS + 1), "status": "done"}], f"at most {MAX_TODO_CHARS}"),
        ([{"content": "a", "status": "done"}, {"content": "b"}], "todo 2 needs a status"),
        ([{"content": "a", "status": "blocked"}], "todo 1 has status 'blocked'"),
        ([{"content": "a", "status": ["done"]}], "todo 1 needs a status"),
        ([{"content": "\ud800", "status": "done"}], "lone UTF-16 surrogate"),
    ],
)
def test_a_bad_list_is_refused_in_one_line(value: Any, words: str) -> None:
    with pytest.raises(ToolError) as raised:
        parse_todos(value)
    message = str(raised.value)
    assert words in message
    assert "\n" not in message and len(message) < 200


# -- the tool, through the registry as the agent calls it -----------------------------------


async def test_the_tool_replaces_the_list(ctx: ToolContext) -> None:
    registry = default_registry()
    output = await registry.dispatch("todo_write", json.dumps({"todos": PLAN}), ctx)
    assert not output.is_error
    assert output.text.startswith("Task list updated: 1 done, 1 in progress, 1 pending.")
    assert output.meta[SUMMARY_KEY] == PLAN


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ("{}", "missing required argument 'todos'"),
        ('{"todos": "a, b"}', "must be an array"),
        ('{"todos": [{"content": "a", "status": "maybe"}]}', "todo 1 has status 'maybe'"),
        ('{"todos": [], "extra": 1}', "unknown argument 'extra'"),
        ('{"todos": [', "not valid JSON"),
    ],
)
async def test_the_tool_refuses_bad_arguments(ctx: ToolContext, arguments: str, words: str) -> None:
    output = await default_registry().dispatch("todo_write", arguments, ctx)
    assert output.is_error
    assert words in output.text and "\n" not in output.text


def test_the_tool_needs_no_approval_and_says_what_it_wrote() -> None:
    tool = TodoWriteTool()
    assert tool.read_only
    assert tool.describe_call({"todos": PLAN}) == (
        "todo_write(3 tasks: 1 done, 1 in progress, 1 pending)"
    )
    assert tool.describe_call({"todos": "nonsense"}) == "todo_write(?)"


# -- the list a history holds ----------------------------------------------------------------


class History:
    """A history built message by message, with ids m1, m2, ..."""

    def __init__(self) -> None:
        self.messages: list[Message] = [Message("system", "you are pleat", id="m1")]

    def add(self, message: Message) -> None:
        message.id = f"m{len(self.messages) + 1}"
        self.messages.append(message)

    def todo_write(self, todos: Any, *, result: str | None = "ok", is_error: bool = False) -> None:
        """A todo_write call and (unless result is None: still running) its result."""
        call = ToolCall(f"call{len(self.messages)}", "todo_write", json.dumps({"todos": todos}))
        self.add(Message("assistant", None, tool_calls=(call,)))
        if result is not None:
            meta = {"is_error": is_error}
            self.add(Message("tool", result, tool_call_id=call.id, name="todo_write", meta=meta))

    def summary(self, **meta: Any) -> None:
        self.add(Message("user", "[summary]", meta={"kind": "summary", "injected": True, **meta}))


def test_no_list_was_ever_written() -> None:
    history = History()
    history.add(Message("user", "hi"))
    history.add(Message("assistant", "hello"))
    assert current_todos(history.messages) is None


def test_the_newest_call_that_succeeded_wins() -> None:
    history = History()
    history.todo_write([{"content": "old plan", "status": "pending"}])
    history.todo_write(PLAN)
    history.todo_write([{"content": "bad", "status": "nope"}], result="refused", is_error=True)
    history.todo_write([{"content": "in flight", "status": "pending"}], result=None)
    assert current_todos(history.messages) == PLAN_ITEMS


def test_the_last_call_of_one_reply_wins() -> None:
    history = History()
    first = ToolCall("a", "todo_write", json.dumps({"todos": [{"content": "1", "status": "done"}]}))
    second = ToolCall("b", "todo_write", json.dumps({"todos": PLAN}))
    history.add(Message("assistant", None, tool_calls=(first, second)))
    for call in (first, second):
        history.add(Message("tool", "ok", tool_call_id=call.id, name="todo_write"))
    assert current_todos(history.messages) == PLAN_ITEMS


def test_a_summary_carries_the_list_until_a_newer_call() -> None:
    history = History()
    history.summary(**{SUMMARY_KEY: PLAN})
    history.add(Message("user", "go on"))
    history.add(Message("assistant", "working"))
    assert current_todos(history.messages) == PLAN_ITEMS
    history.todo_write([])
    assert current_todos(history.messages) == []


@pytest.mark.parametrize(
    "meta",
    [
        {SUMMARY_KEY: "the plan"},
        {SUMMARY_KEY: [{"content": "a", "status": "sideways"}]},
        {SUMMARY_KEY: [None]},
        {SUMMARY_KEY: None},
    ],
)
def test_a_malformed_list_in_a_summary_is_no_list(meta: dict[str, Any]) -> None:
    history = History()
    history.summary(**meta)
    assert current_todos(history.messages) is None


def test_a_summary_without_a_list_has_none() -> None:
    history = History()
    history.summary()
    assert current_todos(history.messages) is None


# -- the summary message's section -----------------------------------------------------------


def summary_with(todos: list[TodoItem] | None) -> Message:
    return summary_message(
        summary="We fixed things.",
        ledger=Ledger(),
        current=None,
        previous=[],
        request_budget_chars=1_000,
        method="insert",
        todos=todos,
    )


def test_the_summary_message_carries_the_list_word_for_word() -> None:
    message = summary_with(PLAN_ITEMS)
    assert message.content is not None
    assert "## Task list" in message.content
    assert render_todos(PLAN_ITEMS) in message.content
    assert "- [in_progress] Fix the off-by-one" in message.content
    assert message.meta[SUMMARY_KEY] == PLAN
    assert current_todos([Message("system", "s", id="m1"), message]) == PLAN_ITEMS


def test_no_list_no_section() -> None:
    for todos in (None, []):
        message = summary_with(todos)
        assert message.content is not None and "## Task list" not in message.content
    assert SUMMARY_KEY not in summary_with(None).meta
    assert summary_with([]).meta[SUMMARY_KEY] == []


# -- which sessions have the tool --------------------------------------------------------------


@pytest.mark.parametrize("window", [0, 4_096, 200_000])
def test_every_session_has_the_tool_and_its_guidance(workspace: Path, window: int) -> None:
    """A small window too: its tool results are cut to the room a fold leaves, so the schema's
    tokens never crowd out what the model reads (tests/e2e/test_window_matrix.py, 4k)."""
    config = Config(model="openai/m", compaction=CompactionPolicy(context_window=window))
    session = Session.create(workspace, model="openai/m")
    try:
        agent = build_agent(config, workspace, approve_all, session=session)
    finally:
        session.close()
    assert TODO_TOOL_NAME in agent.registry.names()
    assert TODO_TOOL_NAME in (agent.history[0].content or "")
