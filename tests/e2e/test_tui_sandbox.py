"""The sandbox in the TUI under Textual's pilot: the status bar shows the mode, a confined command
runs without a question, leaving the sandbox asks in words that say so, `/sandbox` reports; a
machine without Landlock is said once at start and every command asks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.sandbox_support import needs_sandbox
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import asked, command, make_app, send, started, wait_for
from tests.support.tui_support import work_finished as turn_finished
from tools.sandbox.modes import NO_LANDLOCK_VARIABLE
from tools.sandbox.policy import machine_support
from tui.app import PleatApp
from tui.screens.approval import ApprovalScreen
from tui.widgets.notice import Notice
from tui.widgets.status_bar import StatusBar

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def notices(app: PleatApp) -> list[str]:
    return [str(notice.entry.text) for notice in app.query(Notice)]


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


@pytest.fixture
def no_landlock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process takes the machine to have no Landlock (the support is asked once per
    process: asked again here, and again after the test)."""
    monkeypatch.setenv(NO_LANDLOCK_VARIABLE, "1")
    machine_support.cache_clear()
    yield
    monkeypatch.delenv(NO_LANDLOCK_VARIABLE)
    machine_support.cache_clear()


@needs_sandbox
async def test_a_confined_command_runs_unasked_and_leaving_asks_in_plain_words(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    server.push(
        ToolCalls([("run_command", {"command": "echo hi > inside.txt"})]),
        ToolCalls([("run_command", {"command": f"echo hi > {outside}", "no_sandbox": True})]),
        Text("done"),
    )
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert "ask mode · sandbox workspace-write" in app.query_one(StatusBar).line
        await send(pilot, app, "write both")
        await asked(pilot, app, ApprovalScreen, "the question to leave the sandbox")
        assert (workspace / "inside.txt").exists()  # the first command did not ask
        title = str(app.screen.query_one("#approval-title").render())
        assert title == "Allow run_command OUTSIDE the sandbox, with all your rights?"
        always = str(app.screen.query_one("#approval-always").render())
        assert always.startswith("Always (a) runs this exact command outside the sandbox")
        await pilot.press("y")
        await wait_for(pilot, lambda: turn_finished(app), "the turn to end")
        assert outside.read_text() == "hi\n"
        await command(pilot, app, "/sandbox")
        await wait_for(pilot, lambda: notices(app)[-1].startswith("sandbox "), "the report")
        report = notices(app)[-1]
        assert report.startswith("sandbox workspace-write (no network); file system by Landlock")
        assert "in ask mode, a command in the sandbox runs without asking" in report


async def test_without_landlock_it_says_so_once_and_commands_ask(
    server: ScriptedServer, workspace: Path, no_landlock: None
) -> None:
    server.push(ToolCalls([("run_command", {"command": "echo hi > made.txt"})]), Text("done"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: any("not enforced" in n for n in notices(app)), "notice")
        said = [n for n in notices(app) if "not enforced" in n]
        assert said == [
            "sandbox workspace-write asked for, but not enforced here (the kernel has no "
            "Landlock): commands run unconfined, so they ask first as with the sandbox off "
            "(unless your mode or allow rules let them run)"
        ]
        assert "sandbox workspace-write (not enforced)" in app.query_one(StatusBar).line
        session = app.query_one(StatusBar).session
        await send(pilot, app, "make a file")
        await asked(pilot, app, ApprovalScreen, "the question")
        title = str(app.screen.query_one("#approval-title").render())
        assert title == "Allow run_command?"
        await pilot.press("n")
        await wait_for(pilot, lambda: turn_finished(app), "the turn to end")
        await command(pilot, app, "/new")
        bar = app.query_one(StatusBar)
        await wait_for(pilot, lambda: bar.session != session, "the new session")
        assert not [n for n in notices(app) if "not enforced" in n]  # said once, at start
    assert not (workspace / "made.txt").exists()
    assert tool_results(server, 1)[0].startswith("refused: the user did not approve")
