"""A question that opens while the user types takes no key until it has been on screen a moment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import ManualClock, make_app, send, wait_for, work_finished
from tui.screens.approval import ApprovalScreen
from tui.screens.question import ARMING_SECONDS
from tui.widgets.prompt_input import PromptInput

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


async def test_keys_pressed_as_a_question_opens_answer_nothing(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]), Text("done"))
    app = make_app(server, workspace)
    clock = app.arming.clock
    assert isinstance(clock, ManualClock)
    async with app.run_test() as pilot:
        await send(pilot, app, "write a.txt")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen.shown_at is not None,
            "the approval",
        )
        question = app.screen
        await pilot.press("y", "enter", "n", "escape")  # typing on, unaware of the question
        for key in "then update the changelog":  # a key every 0.2 s, for far past 0.4 s
            clock.now += ARMING_SECONDS / 2
            await pilot.press("space" if key == " " else key)
        clock.now += ARMING_SECONDS * 0.9  # a pause, though not yet a stop
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is question  # nothing answered it (the "a" of "update": always) ...
        assert not (workspace / "a.txt").exists()
        # ... and the text typed went where it was meant to go: the prompt below
        assert app.query_one(PromptInput).value == "ynthen update the changelogy"
        clock.now += ARMING_SECONDS  # the typing has stopped: the question is read
        await pilot.press("y")  # and answered
        await wait_for(pilot, lambda: work_finished(app), "the turn to end")
        assert (workspace / "a.txt").read_text() == "hi"


async def test_quitting_never_waits_for_a_question_to_arm(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]), Text("done"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "write a.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval")
        await pilot.press("ctrl+q")  # the clock has not moved: the question is not armed
        await wait_for(pilot, lambda: not app.is_running, "the app to quit")
    assert not (workspace / "a.txt").exists()
