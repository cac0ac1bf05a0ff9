"""Type while it works: a prompt sent during a running turn is queued, shown as queued, can be
taken back to edit or drop, and reaches the model at the turn's next call, or as the next turn."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent.turn.prompt_queue import joined
from tests.support.scripted_server import Reply, ScriptedServer, Text, ToolCalls
from tests.support.tui_support import (
    assert_valid_history,
    command,
    exchange,
    make_app,
    model,
    send,
    small_policy,
    started,
    summary_reply,
    wait_for,
    work_finished,
)
from tui.app import PleatApp
from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.prompt_input import PromptInput
from tui.widgets.queued_prompts import QueuedPrompts
from tui.widgets.tool_call import ToolCallBlock
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# Seconds the server holds a reply at most: the test lets it go long before; past this the
# reply goes anyway, so a failing test never leaves the server's thread waiting.
HOLD_SECONDS = 30


class Held:
    """A reply the server gives only once the test lets it go: the turn waits at that model
    call, as a turn waits on a slow model, while the user types."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.go = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Reply:
        self.go.wait(HOLD_SECONDS)
        return self.reply


async def type_prompt(pilot: Pilot, app: PleatApp, text: str) -> None:
    """Type a prompt and press Enter, as a person does while pleat works."""
    await pilot.press(*text)
    await pilot.press("enter")
    await pilot.pause()


def queued(app: PleatApp) -> QueuedPrompts:
    return app.query_one(QueuedPrompts)


def shown(app: PleatApp) -> list[tuple[str, str]]:
    """The conversation in order, as (kind, text): user prompts, tool blocks, replies."""
    items: list[tuple[str, str]] = []
    for widget in app.conversation.children:
        if isinstance(widget, UserMessage):
            items.append(("user", widget.text))
        elif isinstance(widget, ToolCallBlock):
            items.append(("tool", str(widget.title)))
        elif isinstance(widget, AssistantMessage):
            items.append(("reply", widget.source))
    return items


async def hold_first_call(
    pilot: Pilot, app: PleatApp, server: ScriptedServer, first: Reply, *then: Reply
) -> Held:
    """Start a turn whose first model call the server holds; returns the hold."""
    held = Held(first)
    server.push(held, *then)
    await started(pilot, app)
    await send(pilot, app, "read a.txt")
    await wait_for(pilot, lambda: len(server.requests) == 1, "the first model call")
    return held


async def test_a_prompt_sent_during_a_turn_is_read_at_its_next_call(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        held = await hold_first_call(
            pilot, app, server, ToolCalls([("read_file", {"path": "a.txt"})]), Text("read both")
        )
        try:
            await type_prompt(pilot, app, "then b.txt")
            assert app.busy  # queued, not refused: the turn still runs
            assert queued(app).display and queued(app).prompts == ("then b.txt",)
            assert app.query_one(PromptInput).value == ""
        finally:
            held.go.set()
        await wait_for(pilot, lambda: work_finished(app), "the turn to end")
        assert not queued(app).display
        assert app.agent is not None
        assert_valid_history(app.agent.history)
        # Shown where the model read it: after the tool's result, before the reply.
        assert [kind for kind, _ in shown(app)] == ["user", "tool", "user", "reply"]
        assert shown(app)[2] == ("user", "then b.txt")
    assert len(server.requests) == 2  # one turn: no second one was started for it
    second = server.requests[1].messages
    assert second[-2]["role"] == "tool" and "alpha" in second[-2]["content"]
    assert second[-1] == {"role": "user", "content": "then b.txt"}


async def test_prompts_left_when_the_turn_ends_are_the_next_turn(
    server: ScriptedServer, workspace: Path
) -> None:
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        held = await hold_first_call(
            pilot, app, server, Text("first answer"), Text("second answer")
        )
        try:
            await type_prompt(pilot, app, "second")
            await type_prompt(pilot, app, "third")
            assert queued(app).prompts == ("second", "third")
        finally:
            held.go.set()
        await wait_for(pilot, lambda: len(server.requests) == 2, "the next turn")
        await wait_for(pilot, lambda: work_finished(app), "the next turn to end")
        assert not queued(app).display
        assert shown(app) == [
            ("user", "read a.txt"),
            ("reply", "first answer"),
            ("user", joined(["second", "third"])),
            ("reply", "second answer"),
        ]
    sent = server.requests[1].messages
    assert sent[-2] == {"role": "assistant", "content": "first answer"}
    assert sent[-1] == {"role": "user", "content": joined(["second", "third"])}


async def test_up_takes_a_queued_prompt_back_to_edit(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        held = await hold_first_call(
            pilot, app, server, ToolCalls([("read_file", {"path": "a.txt"})]), Text("done")
        )
        prompt = app.query_one(PromptInput)
        try:
            await type_prompt(pilot, app, "chek b.txt")
            await pilot.press("up")  # the prompt is empty: the newest queued prompt comes back
            assert prompt.value == "chek b.txt"
            assert not queued(app).display
            await pilot.press("home", "right", "right", "right", "c")
            assert prompt.value == "check b.txt"
            await pilot.press("enter")  # queued again, as edited
            await pilot.pause()
            assert queued(app).prompts == ("check b.txt",)
        finally:
            held.go.set()
        await wait_for(pilot, lambda: work_finished(app), "the turn to end")
    assert server.requests[1].messages[-1] == {"role": "user", "content": "check b.txt"}
    assert all("chek" not in str(r.messages) for r in server.requests)


async def test_a_queued_prompt_taken_back_and_cleared_is_dropped(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        held = await hold_first_call(
            pilot, app, server, ToolCalls([("read_file", {"path": "a.txt"})]), Text("done")
        )
        prompt = app.query_one(PromptInput)
        try:
            await type_prompt(pilot, app, "never mind")
            await pilot.press("up")
            assert prompt.value == "never mind"
            await pilot.press(*["backspace"] * len("never mind"))
            assert prompt.value == ""
        finally:
            held.go.set()
        await wait_for(pilot, lambda: work_finished(app), "the turn to end")
        await pilot.pause(0.2)  # time enough for a next turn to start, if one wrongly would
        assert work_finished(app)
    assert len(server.requests) == 2
    assert all("never mind" not in str(r.messages) for r in server.requests)


async def test_esc_puts_the_queued_prompts_back_unsent(
    server: ScriptedServer, workspace: Path
) -> None:
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        held = await hold_first_call(pilot, app, server, Text("too late"))
        try:
            await type_prompt(pilot, app, "one")
            await type_prompt(pilot, app, "two")
            await pilot.press(*"draft")
            await pilot.press("escape")
            await wait_for(pilot, lambda: work_finished(app), "the interruption")
        finally:
            held.go.set()
        assert app.query_one(PromptInput).value == joined(["one", "two", "draft"])
        assert not queued(app).display
        await pilot.pause(0.2)
        assert work_finished(app)  # nothing was sent after the interruption
    assert len(server.requests) == 1
    assert all(m.get("content") not in ("one", "two") for m in server.requests[0].messages)


async def test_a_prompt_sent_during_a_fork_opens_the_child_session(
    server: ScriptedServer, workspace: Path
) -> None:
    """Work that is not a turn (here /fork, which folds first and switches sessions): what was
    queued meanwhile is the first turn after it, in the session it switched to."""
    held = Held(summary_reply())
    server.fallback = model([Text("first answer " * 30), Text("in the fork")], held)
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "first question")
        await exchange(pilot, app, "second question")
        parent = app.session.id if app.session else ""
        try:
            await command(pilot, app, "/fork")
            await wait_for(pilot, lambda: len(server.requests) == 3, "the fork's fold")
            await type_prompt(pilot, app, "carry on here")
            assert queued(app).prompts == ("carry on here",)
        finally:
            held.go.set()
        await wait_for(pilot, lambda: len(server.requests) == 4, "the queued turn")
        await wait_for(pilot, lambda: work_finished(app), "the queued turn to end")
        assert app.session is not None and app.session.id != parent
        assert app.agent is not None
        assert app.agent.history[-2].content == "carry on here"
    assert server.requests[3].messages[-1]["content"].endswith("carry on here")
