"""Steering folds in the live app (issue 25): /goal in the status bar and in the summary;
/compact --preview edited in the TUI then accepted, or discarded; Enter on the fold marker shows
the summary beside its chunk; /rewind's "fold up to here"."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown, TextArea

from sessions.messages import is_summary
from tests.support.scripted_server import ScriptedServer
from tests.support.tui_support import (
    asked,
    command,
    exchange,
    make_app,
    model,
    small_policy,
    started,
    summary_reply,
    wait_for,
    work_finished,
)
from tui.app import PleatApp
from tui.screens.chunks import ChunkBrowserScreen
from tui.screens.rewind import RewindScopeScreen, RewindScreen
from tui.screens.summary_preview import SummaryPreviewScreen
from tui.widgets.compaction_marker import CompactionMarker
from tui.widgets.notice import Notice
from tui.widgets.prompt_input import PromptInput
from tui.widgets.status_bar import StatusBar

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

GOAL = "ship the [bold]parser[/bold] fix before the release on Friday"  # markup: text


def notices(app: PleatApp) -> list[str]:
    return [notice.text for notice in app.query(Notice)]


async def test_goal_preview_edit_marker_summary_and_fold_up_to_here(
    server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = model([], compress=lambda body: summary_reply("parser", "model summary"))
    # A window where five short exchanges never reach the threshold beside the tool schemas:
    # every fold here is one the test asks for.
    app = make_app(server, workspace, compaction=small_policy(context_window=5_000))
    async with app.run_test(size=(140, 40)) as pilot:
        await started(pilot, app)
        for prompt in ("first", "second", "third"):
            await exchange(pilot, app, prompt)
        await command(pilot, app, f"/goal {GOAL}")
        assert f"goal: {GOAL[:39]}…" in app.query_one(StatusBar).line
        assert app.agent is not None and app.agent.goal == GOAL

        await command(pilot, app, "/compact --preview")  # discarded: nothing changes
        await asked(pilot, app, SummaryPreviewScreen, "the preview")
        history = list(app.agent.history)
        await pilot.press("escape")
        await wait_for(pilot, lambda: work_finished(app), "the discarded fold")
        assert app.agent.history == history and app.session is not None
        assert app.session.archive.chunks() == []

        await command(pilot, app, "/compact --preview")  # edited here, then accepted
        await asked(pilot, app, SummaryPreviewScreen, "the preview")
        area = app.screen.query_one(TextArea)
        assert area.text == "model summary"
        area.text = "edited in the TUI"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: work_finished(app), "the fold")
        summary = app.agent.history[1]
        assert is_summary(summary) and "edited in the TUI" in (summary.content or "")
        assert "## Goal (set by the user; kept by pleat word for word until" in summary.content
        assert GOAL in (summary.content or "")

        marker = app.query(CompactionMarker).last()
        assert marker.state == "done"
        marker.focus()
        await pilot.press("enter")  # the chunk and, beside it, the summary that replaced it
        await wait_for(pilot, lambda: isinstance(app.screen, ChunkBrowserScreen), "the browser")
        beside = app.screen.query_one("#summary-view", Markdown)
        await wait_for(pilot, lambda: "edited in the TUI" in beside.source, "the summary")
        assert app.screen.query_one("#summary-scroll").display
        await pilot.press("escape")

        app.query_one(PromptInput).focus()  # away from the marker (Enter there opens it)
        await exchange(pilot, app, "fourth")
        await exchange(pilot, app, "fifth")
        await command(pilot, app, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), "the turn list")
        await pilot.press("enter")  # the latest, "fifth", is highlighted
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScopeScreen), "the question")
        await pilot.press("s")
        await wait_for(pilot, lambda: len(app.session.archive.chunks()) == 2, "the fold")
        await wait_for(pilot, lambda: work_finished(app), "its commit")
        kept = [m.content for m in app.agent.history[2:]]
        assert kept == ["fifth", "ok"]  # folded up to "fifth"; it and its reply verbatim
        states = [m.state for m in app.query(CompactionMarker)]
        assert states == ["cancelled", "done", "done"]  # discarded, edited, up to "fifth"
