"""The prompt: multi-line input, history from the first and last line, / and @ completion."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import exchange, make_app, model, wait_for, work_finished
from tui.screens.context import ContextScreen
from tui.widgets.completion_list import CompletionList
from tui.widgets.prompt_input import PromptInput
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


async def test_new_lines_and_sending(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("ok")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c", "backslash", "enter", "d")
        assert prompt.value == "a\nb\nc\nd"
        await pilot.press("enter")
        await wait_for(pilot, lambda: work_finished(app), "the reply")
        assert app.query_one(UserMessage).text == "a\nb\nc\nd"
        assert prompt.value == ""
    assert server.requests[0].messages[-1]["content"] == "a\nb\nc\nd"


async def test_history_walks_from_the_first_and_last_line(
    server: ScriptedServer, workspace: Path
) -> None:

    server.fallback = model([Text("one"), Text("two")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await exchange(pilot, app, "first")
        await exchange(pilot, app, "second\nhas two lines")
        prompt = app.query_one(PromptInput)
        await pilot.press("x", "ctrl+j", "y")  # a two-line draft, cursor on its last line
        await pilot.press("up")
        assert prompt.value == "x\ny" and prompt.cursor_location == (0, 1)  # moved up a line
        await pilot.press("up")
        assert prompt.value == "second\nhas two lines"
        await pilot.press("up")  # the cursor is on the last line: first it moves up
        assert prompt.value == "second\nhas two lines"
        await pilot.press("up")
        assert prompt.value == "first"
        await pilot.press("down", "down")
        assert prompt.value == "x\ny"


async def test_slash_completion(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("hi")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await exchange(pilot, app, "hello")
        completions = app.query_one(CompletionList)
        prompt = app.query_one(PromptInput)
        await pilot.press("slash")
        await pilot.pause()
        assert completions.showing and completions.option_count >= 10
        await pilot.press("c", "o")
        await pilot.pause()
        names = [s.value for s in completions.completion.suggestions]
        assert names == ["/compact", "/context", "/copy"]
        await pilot.press("tab")
        await pilot.pause()
        assert prompt.value == "/compact " and not completions.showing
        await pilot.press(*["backspace"] * 9, "slash", "c", "o", "n")
        await pilot.pause()
        await pilot.press("enter")  # runs the highlighted command at once
        await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen), "/context")


async def test_escape_closes_the_suggestions(server: ScriptedServer, workspace: Path) -> None:
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await pilot.press("slash")
        await pilot.pause()
        completions = app.query_one(CompletionList)
        assert completions.showing
        await pilot.press("escape")
        assert not completions.showing and app.is_running


async def test_file_completion_skips_ignored_files(server: ScriptedServer, workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("x = 1\n")
    (workspace / "apple.txt").write_text("a\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "app.py").write_text("generated\n")
    (workspace / ".gitignore").write_text("build/\n")
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        completions = app.query_one(CompletionList)
        await pilot.press(*"look at @ap")
        await wait_for(pilot, lambda: completions.showing, "the file suggestions")
        found = [s.value for s in completions.completion.suggestions]
        assert found == ["@apple.txt", "@src/app.py"]  # names starting so, shortest first
        await pilot.press("down", "tab")
        assert prompt.value == "look at @src/app.py "
        assert not completions.showing
