"""/undo and /rewind in the real app: the request comes back into the input, the turn list and
the scope question, and the question about files changed since pleat wrote them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, SelectionList

from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import asked, command, exchange, make_app, model, started, wait_for
from tui.screens.rewind import ChangedFilesScreen, RewindScopeScreen, RewindScreen
from tui.slash_commands import BY_NAME
from tui.widgets.notice import Notice
from tui.widgets.prompt_input import PromptInput
from tui.widgets.task_list import TaskList
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def notices(app) -> list[str]:
    return [n.text for n in app.query(Notice)]


def write(path: str, content: str) -> ToolCalls:
    return ToolCalls([("write_file", {"path": path, "content": content})])


async def test_undo_restores_the_file_and_puts_the_request_back(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_bytes(b"caf\xe9\n")
    server.fallback = model(
        [Text("hello"), write("a.txt", "new\n"), Text("written"), Text("after the undo")]
    )
    app = make_app(server, workspace, approve_everything=True)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "say hello")
        await exchange(pilot, app, "rewrite a.txt\nplease")
        assert (workspace / "a.txt").read_text() == "new\n"
        await command(pilot, app, "/undo")
        prompt = app.query_one(PromptInput)
        await wait_for(pilot, lambda: prompt.value == "rewrite a.txt\nplease", "the request back")
        assert (workspace / "a.txt").read_bytes() == b"caf\xe9\n"
        assert [m.text for m in app.query(UserMessage)] == ["say hello"]
        assert any(n.startswith("undid turn 2: rewrite a.txt") for n in notices(app))
        assert app.agent is not None
        assert [m.content for m in app.agent.history if m.role == "user"] == ["say hello"]
        # The request sent again starts where the conversation went back to.
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.query(UserMessage)) == 2, "the request resent")
        await wait_for(pilot, lambda: app.turn is not None and app.turn.is_finished, "the reply")
    sent = [m["content"] for m in server.requests[-1].messages if m["role"] == "user"]
    assert sent == ["say hello", "rewrite a.txt\nplease"]


async def test_rewind_screen_takes_the_files_back_and_keeps_the_conversation(
    server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = model(
        [write("log.txt", "one\n"), Text("1"), write("log.txt", "two\n"), Text("2")]
    )
    app = make_app(server, workspace, approve_everything=True)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "first")
        await exchange(pilot, app, "second")
        await command(pilot, app, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), "the turn list")
        await pilot.press("up", "enter")  # the latest is highlighted: up to "first"
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScopeScreen), "the question")
        await pilot.press("f")
        await wait_for(pilot, lambda: not (workspace / "log.txt").exists(), "the files back")
        await wait_for(pilot, lambda: any("rewound the files" in n for n in notices(app)), "note")
        assert [m.text for m in app.query(UserMessage)] == ["first", "second"]
        assert app.query_one(PromptInput).value == ""


async def test_a_file_changed_since_is_asked_about(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model(
        [ToolCalls([("write_file", {"path": p, "content": "pleat\n"}) for p in "xy"]), Text("ok")]
    )
    app = make_app(server, workspace, approve_everything=True)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "write x and y")
        (workspace / "x").write_text("mine\n")
        (workspace / "y").write_text("mine too\n")
        await command(pilot, app, "/undo")
        await asked(pilot, app, ChangedFilesScreen, "the question")
        await pilot.press("escape")  # cancel: nothing changes
        await wait_for(pilot, lambda: any("undo cancelled" in n for n in notices(app)), "note")
        assert (workspace / "x").read_text() == "mine\n"
        assert [m.text for m in app.query(UserMessage)] == ["write x and y"]

        await command(pilot, app, "/undo")
        await asked(pilot, app, ChangedFilesScreen, "the question")
        await pilot.press("space", "r")  # the first (x) put back anyway, y kept
        await wait_for(pilot, lambda: not (workspace / "x").exists(), "x removed")
        assert (workspace / "y").read_text() == "mine too\n"
        await wait_for(pilot, lambda: any("kept your version of y" in n for n in notices(app)), "y")


async def test_markup_in_a_request_or_a_path_is_text_in_the_rewind_screens(
    server: ScriptedServer, workspace: Path
) -> None:
    """`[/]` and `[bold]` in a request or a file name are shown as typed (review finding 5:
    they crashed the app as markup)."""
    name = "notes[/]x.md"
    server.fallback = model([write(name, "one\n"), Text("1")])
    app = make_app(server, workspace, approve_everything=True)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "why does x[/] and [bold]y[/bold] fail")
        (workspace / name).write_text("the user's\n")
        await command(pilot, app, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), "the turn list")
        await pilot.pause()
        listing = app.screen.query_one(OptionList)
        assert "x[/] and [bold]y[/bold]" in str(listing.get_option_at_index(0).prompt)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScopeScreen), "the question")
        await pilot.press("f")
        await asked(pilot, app, ChangedFilesScreen, "the files")
        await pilot.pause()
        assert name in str(app.screen.query_one(SelectionList).get_option_at_index(0).prompt)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ChangedFilesScreen), "closed")
    assert (workspace / name).read_text() == "the user's\n"


async def test_undo_refreshes_the_task_list_and_keeps_a_draft(
    server: ScriptedServer, workspace: Path
) -> None:
    plan = [{"content": "STEP ONE", "status": "in_progress"}]
    server.fallback = model([ToolCalls([("todo_write", {"todos": plan})]), Text("planned")])
    app = make_app(server, workspace, approve_everything=True)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "plan the work")
        tasks = app.query_one(TaskList)
        assert tasks.display and [item.content for item in tasks.items] == ["STEP ONE"]
        prompt = app.query_one(PromptInput)
        prompt.value = "a draft I am typing"
        app.run_slash(BY_NAME["undo"], "")  # as the palette runs it: the draft stays
        await wait_for(pilot, lambda: any("undid turn 1" in n for n in notices(app)), "the undo")
        assert not tasks.display  # the rewound history has no task list
        assert prompt.value == "a draft I am typing"
        assert prompt.past[-1] == "plan the work"  # one ↑ away
