"""`!` shell mode under Textual's pilot: the command runs in the workspace with no model call, its
output shows in an open block and reaches the model with the next prompt; deny rules refuse it,
the sandbox confines it, Esc stops it, and typed while a turn works it waits its turn."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent.conversation.shell_line import CONTEXT_NOTE, SHELL_KEY
from tests.support.sandbox_support import needs_sandbox
from tests.support.scripted_server import Reply, ScriptedServer, Text
from tests.support.tui_support import (
    assert_valid_history,
    exchange,
    make_app,
    send,
    started,
    wait_for,
    work_finished,
)
from tui.app import PleatApp
from tui.shell_mode import STOPPED
from tui.widgets.queued_prompts import QueuedPrompts
from tui.widgets.tool_call import ToolCallBlock

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# Seconds the server holds a reply at most: the test lets it go long before; past this the
# reply goes anyway, so a failing test never leaves the server's thread waiting.
HOLD_SECONDS = 30


def blocks(app: PleatApp) -> list[ToolCallBlock]:
    return list(app.query(ToolCallBlock))


def shell_messages(app: PleatApp) -> list[str]:
    assert app.agent is not None
    return [m.content or "" for m in app.agent.history if SHELL_KEY in m.meta]


async def run_line(pilot: Pilot, app: PleatApp, text: str) -> None:
    """Send a `!` line and wait until its work has ended."""
    await send(pilot, app, text)
    await wait_for(pilot, lambda: work_finished(app), "the command to end")


async def test_a_bang_line_runs_without_a_model_call_and_joins_the_next_request(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(Text("I see hi"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await run_line(pilot, app, "!echo hi")
        [block] = blocks(app)
        assert block.entry.summary == "! echo hi"
        assert block.entry.result is not None and block.entry.result.startswith("hi\n")
        assert not block.collapsed and not block.is_error  # the output is shown
        assert server.requests == []  # no model call for the line itself
        await exchange(pilot, app, "what did it print?")
        assert app.agent is not None
        assert_valid_history(app.agent.history)
    [request] = server.requests
    last = request.messages[-1]
    assert last["role"] == "user"  # one user message: the command's, then the prompt
    assert CONTEXT_NOTE in last["content"]
    assert "<bash-input>echo hi</bash-input>" in last["content"]
    assert "<bash-stdout>hi\n" in last["content"] and "exit code: 0" in last["content"]
    assert last["content"].endswith("what did it print?")


async def test_a_deny_rule_refuses_a_bang_line_and_nothing_runs(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "keep.txt").write_text("kept\n")
    app = make_app(server, workspace, deny=("run_command(rm *)",))
    async with app.run_test() as pilot:
        await started(pilot, app)
        await run_line(pilot, app, "!rm keep.txt")
        [block] = blocks(app)
        assert block.is_error
        assert block.entry.result is not None and "run_command(rm *)" in block.entry.result
        assert shell_messages(app) == []  # a refused line does not join the conversation
    assert (workspace / "keep.txt").exists()


@needs_sandbox
async def test_the_sandbox_confines_a_bang_line(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await run_line(pilot, app, f"!echo no > {outside}")
        [block] = blocks(app)
        assert block.is_error  # no question asked: the sandbox refused the write
    assert not outside.exists()


async def test_esc_stops_a_bang_line(server: ScriptedServer, workspace: Path) -> None:
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await send(pilot, app, "!echo started; sleep 60")
        await wait_for(pilot, lambda: app.working, "the command to run")
        await pilot.press("escape")
        await wait_for(pilot, lambda: work_finished(app), "the command to stop")
        [block] = blocks(app)
        assert block.entry.result == STOPPED and block.is_error
        assert shell_messages(app) == []
        assert app.agent is not None
        assert_valid_history(app.agent.history)
    assert server.requests == []


class Held:
    """A reply the server gives only once the test lets it go."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.go = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Reply:
        self.go.wait(HOLD_SECONDS)
        return self.reply


async def test_a_bang_line_typed_during_a_turn_waits_and_keeps_its_place(
    server: ScriptedServer, workspace: Path
) -> None:
    held = Held(Text("first answer"))
    server.push(held, Text("second answer"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await send(pilot, app, "first")
        await wait_for(pilot, lambda: len(server.requests) == 1, "the first model call")
        try:
            for line in ("!echo queued-hi", "after it"):
                await pilot.press(*line, "enter")
                await pilot.pause()
            assert app.query_one(QueuedPrompts).prompts == ("!echo queued-hi", "after it")
        finally:
            held.go.set()
        await wait_for(pilot, lambda: len(server.requests) == 2, "the next turn")
        await wait_for(pilot, lambda: work_finished(app) and not app.busy, "the turn to end")
        assert [b.entry.summary for b in blocks(app)] == ["! echo queued-hi"]
        assert app.agent is not None
        assert_valid_history(app.agent.history)
    second = server.requests[1].messages
    assert second[-2] == {"role": "assistant", "content": "first answer"}
    assert "<bash-stdout>queued-hi\n" in second[-1]["content"]
    assert second[-1]["content"].endswith("after it")  # the command ran first, as typed


async def test_a_resumed_session_shows_the_bang_line_block(
    server: ScriptedServer, workspace: Path
) -> None:
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await run_line(pilot, app, "!echo kept")
        assert app.session is not None
        session_id = app.session.id
    resumed = make_app(server, workspace, resume=session_id)
    async with resumed.run_test() as pilot:
        await started(pilot, resumed)
        await wait_for(pilot, lambda: blocks(resumed), "the block")
        [block] = blocks(resumed)
        assert block.entry.summary == "! echo kept"
        assert block.entry.result is not None and block.entry.result.startswith("kept\n")


async def test_outside_a_sandbox_a_bang_line_still_asks_nothing_in_ask_mode(
    server: ScriptedServer, workspace: Path
) -> None:
    app = make_app(server, workspace, sandbox="off")
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert app.approvals.permissions.mode == "ask"
        await run_line(pilot, app, "!echo free > made.txt")
        [block] = blocks(app)
        assert not block.is_error  # typed by the user: no approval question stood in the way
    assert (workspace / "made.txt").read_text() == "free\n"
