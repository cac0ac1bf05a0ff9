"""Esc with vim keys on (editor_mode = "vim"): in insert mode it goes to normal mode and leaves a
running turn alone; in normal mode, with nothing pending, it interrupts the turn as without vim
keys. The real app under Textual's pilot, against the scripted server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Stall
from tests.support.tui_support import make_app, send, wait_for
from tests.support.tui_support import work_finished as turn_finished
from tui.widgets.prompt_input import PromptInput

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


async def test_escape_goes_to_normal_mode_then_interrupts(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(Stall(5))
    app = make_app(server, workspace, editor_mode="vim")
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        assert prompt.border_title == "-- INSERT --"
        await send(pilot, app, "slow")
        await wait_for(pilot, lambda: server.requests, "the request to reach the server")
        await pilot.press(*"draft", "escape")
        assert prompt.border_title == "-- NORMAL --" and prompt.text == "draft"
        await pilot.pause()
        assert app.working  # the first Esc only left insert mode
        await pilot.press("escape")
        await wait_for(pilot, lambda: turn_finished(app), "the interruption")
        assert app.turn is not None and app.turn.state.name == "CANCELLED"
        assert prompt.text == "draft"
