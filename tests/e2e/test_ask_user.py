"""ask_user (issue 27 item 10): headless, the result says at once that nobody is present; bad
arguments are an error the model reads; in the TUI (Textual's pilot) the question shows its
options, a key picks one, a typed answer goes back, Esc gives none. The scripted server records
what the model was sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button

from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import asked, make_app, send, started, wait_for
from tests.support.tui_support import work_finished as turn_finished
from tools.ask_user import DISMISSED, NO_USER
from tui.screens.ask_user import AskUserScreen

# Slow: headless runs (in process) and the TUI under Textual's pilot, about 5 s.
pytestmark = pytest.mark.slow

QUESTION = {"question": "Which database?", "options": ["SQLite", "Postgres", "\x1b[31mRed\x1b[0m"]}


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def test_headless_says_nobody_is_present(workspace: Path, server: ScriptedServer) -> None:
    server.push(
        ToolCalls([("ask_user", {"question": "Which?", "options": ["only one"]})]),
        ToolCalls([("ask_user", QUESTION)]),
        Text("I chose SQLite."),
    )
    run = run_pleat(workspace, server, "-p", "set up storage")
    assert run.returncode == 0, run.stderr
    assert tool_results(server, 1) == ["give 2 to 6 options, not 1"]
    assert tool_results(server, 2)[-1] == NO_USER
    assert run.stdout.strip() == "I chose SQLite."


async def test_the_tui_asks_and_a_key_picks_an_option(
    workspace: Path, server: ScriptedServer
) -> None:
    server.push(
        ToolCalls([("ask_user", QUESTION)]),
        ToolCalls([("ask_user", QUESTION)]),
        ToolCalls([("ask_user", QUESTION)]),
        Text("ok"),
    )
    app = make_app(server, workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        await send(pilot, app, "set up storage")
        await asked(pilot, app, AskUserScreen, "the question")
        labels = [str(button.label) for button in app.screen.query(Button)]
        assert labels == ["1. SQLite", "2. Postgres", "3. \\x1b[31mRed\\x1b[0m"]  # no escapes
        await pilot.press("2")
        await asked(pilot, app, AskUserScreen, "the second question")
        await pilot.press(*"MySQL 8", "enter")  # typing goes to the answer's field
        await asked(pilot, app, AskUserScreen, "the third question")
        await pilot.press("escape")
        await wait_for(pilot, lambda: turn_finished(app), "the turn")
    assert tool_results(server, 1)[-1] == "The user chose option 2: Postgres"
    assert tool_results(server, 2)[-1] == "The user answered: MySQL 8"
    assert tool_results(server, 3)[-1] == DISMISSED


async def test_options_are_shown_as_written_never_as_markup(
    workspace: Path, server: ScriptedServer
) -> None:
    """Textual reads a Button's text as markup: "[/bold]" crashed the app, "[#000 on #000]"
    could hide part of an option (found by review)."""
    options = ["[/bold]closing", "[#000 on #000]hidden[/] rm -rf ~", "[@click=app.quit]x[/]"]
    server.push(ToolCalls([("ask_user", {"question": "Which?", "options": options})]), Text("ok"))
    app = make_app(server, workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        await send(pilot, app, "go")
        await asked(pilot, app, AskUserScreen, "the question")
        shown = [str(button.label) for button in app.screen.query(Button)]
        assert shown == [f"{n}. {option}" for n, option in enumerate(options, start=1)]
        await pilot.press("3")
        await wait_for(pilot, lambda: turn_finished(app), "the turn")
    assert tool_results(server, 1)[-1] == f"The user chose option 3: {options[2]}"
