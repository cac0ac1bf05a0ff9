"""Esc Esc and Ctrl+G under Textual's pilot: two Escs in an empty prompt within the window open
/rewind at the last turn (by the app's manual clock: no wall time), a late second one, a draft or
running work does not; Ctrl+G where no terminal can be handed over keeps the prompt and says so."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from tests.support.scripted_server import Reply, ScriptedServer, Text
from tests.support.tui_support import (
    ManualClock,
    exchange,
    make_app,
    send,
    started,
    wait_for,
    work_finished,
)
from tui.app import PleatApp
from tui.prompt_keys import DOUBLE_ESCAPE_SECONDS
from tui.screens.rewind import RewindScreen
from tui.widgets.prompt_input import PromptInput

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# Seconds the server holds a reply at most: the test lets it go long before.
HOLD_SECONDS = 30


def clock(app: PleatApp) -> ManualClock:
    moved = app.arming.clock
    assert isinstance(moved, ManualClock)
    return moved


async def test_esc_esc_in_an_empty_prompt_opens_rewind_at_the_last_turn(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(Text("one"), Text("two"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "first request")
        await exchange(pilot, app, "second request")
        await pilot.press("escape")
        clock(app).now += DOUBLE_ESCAPE_SECONDS + 0.1  # too late: not a pair
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindScreen)
        clock(app).now += DOUBLE_ESCAPE_SECONDS / 2  # the second of a pair
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), "the rewind list")
        options = app.screen.query_one(OptionList)
        assert options.option_count == 2 and options.highlighted == 1  # the last turn
        await pilot.press("escape")  # closes the list; nothing rewound
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindScreen), "the list closed")
        assert app.agent is not None
        assert [m.content for m in app.agent.history if m.role == "user"] == [
            "first request",
            "second request",
        ]


async def test_esc_esc_with_a_draft_or_running_work_does_not_rewind(
    server: ScriptedServer, workspace: Path
) -> None:
    go = threading.Event()

    def held(body: dict[str, Any]) -> Reply:
        go.wait(HOLD_SECONDS)
        return Text("late")

    server.push(Text("one"), held)
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "first request")
        app.query_one(PromptInput).value = "a draft"
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindScreen)
        assert app.query_one(PromptInput).value == "a draft"
        app.query_one(PromptInput).value = ""
        try:
            await send(pilot, app, "second request")
            await wait_for(pilot, lambda: len(server.requests) == 2, "the held call")
            await pilot.press("escape")  # interrupts: it is not the first of a pair
            await wait_for(pilot, lambda: work_finished(app), "the interruption")
        finally:
            go.set()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindScreen)


async def test_ctrl_g_without_a_terminal_to_hand_over_keeps_the_prompt(
    server: ScriptedServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = tmp_path / "ed"
    editor.write_text('#!/bin/sh\necho replaced > "$1"\n')
    editor.chmod(0o700)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(server, workspace)
    async with app.run_test(notifications=True) as pilot:
        await started(pilot, app)
        app.query_one(PromptInput).value = "my draft"
        await pilot.press("ctrl+g")  # the test's terminal cannot be suspended
        await pilot.pause()
        assert app.query_one(PromptInput).value == "my draft"
        said = [n.message for n in app._notifications]
        assert any(m.startswith("Ctrl+G: this terminal cannot be handed") for m in said)
