"""/copy, /export, /diff, /rename and the resume picker in the real app (Textual's pilot): the
clipboard gets the last answer, the export file is written once and never overwritten, the diff
is shown in the diff view without a model call, a damaged session is listed but not chosen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from sessions.paths import session_dir
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import command, exchange, make_app, model, started, wait_for
from tui.app import PleatApp
from tui.screens.sessions import SessionsScreen
from tui.widgets.diff_view import DiffView
from tui.widgets.notice import Notice
from tui.widgets.tool_call import ToolCallBlock

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def notices(app: PleatApp, kind: str | None = None) -> list[str]:
    return [n.text for n in app.query(Notice) if kind is None or n.kind == kind]


async def test_copy_export_and_diff_take_no_model_call(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("keep\nold line\n")
    edit = ("edit_file", {"path": "notes.txt", "old_string": "old", "new_string": "new"})
    server.fallback = model([ToolCalls([edit]), Text("edited the notes")])
    app = make_app(server, workspace, approve_everything=True)
    async with app.run_test() as pilot:
        await command(pilot, app, "/copy")
        await wait_for(pilot, lambda: notices(app, "error"), "nothing to copy")
        assert "there is no answer yet" in notices(app, "error")[0]
        await exchange(pilot, app, "edit the notes")
        asked = len(server.requests)

        await command(pilot, app, "/copy")
        await wait_for(pilot, lambda: app.clipboard == "edited the notes", "the clipboard")
        await wait_for(pilot, lambda: any("copied the last" in n for n in notices(app)), "said")

        await command(pilot, app, "/diff")
        await wait_for(pilot, lambda: app.query(DiffView), "the diff view")
        block = app.query(ToolCallBlock).last()
        assert "1 file changed" in block.summary
        shown = app.query(DiffView).last().diff
        assert "--- a/notes.txt" in shown and "-old line\n+new line" in shown

        await command(pilot, app, "/export talk.md")
        await wait_for(pilot, lambda: (workspace / "talk.md").exists(), "the export")
        text = (workspace / "talk.md").read_text()
        assert "### User\n\nedit the notes" in text and "Tool call: `edit_file`" in text
        await command(pilot, app, "/export talk.md")
        await wait_for(pilot, lambda: len(notices(app, "error")) == 2, "the refusal")
        assert "talk.md exists" in notices(app, "error")[1]
        assert (workspace / "talk.md").read_text() == text

        await command(pilot, app, "/rename")
        await wait_for(pilot, lambda: len(notices(app, "error")) == 3, "no name")
        assert "/rename NAME" in notices(app, "error")[2]
    assert len(server.requests) == asked


async def test_a_damaged_session_is_listed_but_not_resumed(
    server: ScriptedServer, workspace: Path
) -> None:
    damaged = session_dir("20260101-000000-dead00")
    damaged.mkdir(parents=True)
    (damaged / "journal.jsonl").write_text("not a header\n")
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        mine = app.session.id if app.session else ""
        await command(pilot, app, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), "the picker")
        listing = app.screen.query_one("#session-list", OptionList)
        labels = {
            str(listing.get_option_at_index(i).id): listing.get_option_at_index(i)
            for i in range(listing.option_count)
        }
        assert set(labels) == {mine, damaged.name}
        broken = labels[damaged.name]
        assert broken.disabled and "damaged" in str(broken.prompt)
        await pilot.press("d", "a", "m")  # filtered to the damaged one alone: Enter picks nothing
        await wait_for(pilot, lambda: listing.option_count == 1, "the filter")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionsScreen), "closed")
        assert app.session is not None and app.session.id == mine


async def test_copy_puts_what_the_screen_showed_on_the_clipboard(
    server: ScriptedServer, workspace: Path
) -> None:
    """An answer holding an ESC sequence and the end of a bracketed paste: a paste into a shell
    would type what the user never saw (found by review); the clipboard gets the escape text."""
    answer = "run: ls\x1b[201~\nrm -rf ~\x1b[200~ \u202eevil"
    server.fallback = model([Text(answer)])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await exchange(pilot, app, "say it")
        await command(pilot, app, "/copy")
        await wait_for(pilot, lambda: app.clipboard != "", "the clipboard")
        assert app.clipboard == "run: ls\\x1b[201~\nrm -rf ~\\x1b[200~ \\u202eevil"
        await wait_for(pilot, lambda: any("copied" in n for n in notices(app)), "said")
        assert any("3 control characters as escape text" in n for n in notices(app))
