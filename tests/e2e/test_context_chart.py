"""/context's chart: the context (prompt tokens) over the session's model calls, read from the
journal, with the fold threshold across it and each fold marked; from no call to thousands."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Static
from textual_plotext import PlotextPlot

from sessions.call_history import Call, CallHistory, read_call_history
from sessions.journal import Journal
from sessions.messages import Message
from sessions.store import Session
from sessions.usage import Usage
from tests.support.constants import TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import (
    command,
    exchange,
    make_app,
    model,
    small_policy,
    started,
    wait_for,
)
from tui.app import PleatApp
from tui.screens.context import ContextScreen
from tui.widgets.compaction_marker import CompactionMarker
from tui.widgets.context_chart import CHART_POINTS, FOLD_MARK

SYSTEM = Message(role="system", content="You are pleat.", id="m1")


def test_the_journal_gives_calls_in_order_and_where_each_fold_sat(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.header(id="s", model=TEST_MODEL)
    # A fork's journal opens with a compaction carrying its parent's history: not a fold.
    journal.compaction(chunk=0, merged=False, chunk_state={}, history=[SYSTEM])
    journal.message(Message(role="user", content="hello", id="m2"))
    journal.usage(TEST_MODEL, purpose="turn", prompt_tokens=1_200, completion_tokens=9)
    journal.usage(TEST_MODEL, purpose="turn", prompt_tokens=2_500)
    journal.usage(TEST_MODEL, purpose="compression", prompt_tokens=2_600, cached_tokens=2_400)
    journal.compaction(chunk=1, merged=False, chunk_state={}, history=[SYSTEM])
    journal.usage(TEST_MODEL, purpose="turn")  # interrupted: no prompt size reported
    journal.usage(TEST_MODEL, purpose="turn", prompt_tokens=900)
    journal.close()
    with (tmp_path / "journal.jsonl").open("a") as file:
        file.write('{"type":"usage","prompt_tok')  # a line torn by a crash
    history = read_call_history(tmp_path / "journal.jsonl")
    assert history.calls == [
        Call(1_200, "turn"),
        Call(2_500, "turn"),
        Call(2_600, "compression"),
        Call(900, "turn"),
    ]
    assert history.folds == [3]  # after the third call (the compression call), before the 4th
    assert read_call_history(tmp_path / "missing.jsonl") == CallHistory()


def test_thousands_of_calls_are_drawn_by_their_peaks() -> None:
    sizes = [(n % 50) * 100 + 1_000 for n in range(10_000)]
    sizes[7_777] = 99_999  # one outlier: a drawn point must keep it
    history = CallHistory([Call(size, "turn") for size in sizes])
    points = history.points(CHART_POINTS)
    assert len(points) == CHART_POINTS
    assert [x for x, _ in points] == sorted({x for x, _ in points})
    assert (7_778, 99_999) in points
    assert max(y for _, y in points) == 99_999
    assert all(sizes[x - 1] == y for x, y in points)  # every point is a real call
    few = CallHistory([Call(5, "turn"), Call(7, "turn")])
    assert few.points(CHART_POINTS) == [(1, 5), (2, 7)]


def rendered(app: PleatApp) -> tuple[str, str]:
    """The chart as the terminal shows it, and its caption (key), as plain text."""
    chart = app.screen.query_one("#context-chart", PlotextPlot)
    caption = app.screen.query_one("#context-chart-caption", Static)
    return str(chart.render()), str(caption.render())


async def open_context(pilot, app: PleatApp) -> ContextScreen:
    await command(pilot, app, "/context")
    await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen), "the context view")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ContextScreen)
    return screen


@pytest.mark.slow  # the whole TUI under Textual's pilot
async def test_a_session_that_folded_shows_its_calls_threshold_and_fold(
    server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = model([Text("one " * 50), Text("two"), Text("three")])
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test(size=(100, 40)) as pilot:
        await exchange(pilot, app, "a")
        await exchange(pilot, app, "b")
        await command(pilot, app, "/compact")
        await wait_for(pilot, lambda: app.query(CompactionMarker), "the fold")
        await exchange(pilot, app, "c")
        screen = await open_context(pilot, app)
        calls = screen.report.calls
        assert calls is not None
        assert len(calls.calls) == len(server.requests)  # every model call, in order
        assert [c.purpose == "compression" for c in calls.calls].count(True) >= 1
        assert calls.folds and all(0 < fold < len(calls.calls) for fold in calls.folds)
        chart, caption = rendered(app)
        trigger = screen.report.trigger
        assert f"fold threshold {trigger:,}" in caption
        assert f"{len(calls.folds)})" in caption and FOLD_MARK in caption
        assert f"{trigger:,}" in chart  # the threshold's level is labelled on the axis
        assert chart.count(FOLD_MARK) == len(calls.folds)  # one mark a fold
        assert "─" * 10 in chart  # the threshold line across the plot


@pytest.mark.slow  # the whole TUI under Textual's pilot
async def test_before_the_first_call_the_chart_says_so(
    server: ScriptedServer, workspace: Path
) -> None:
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test() as pilot:
        await started(pilot, app)
        screen = await open_context(pilot, app)
        note = screen.query_one("#context-chart-empty", Static)
        assert "No model calls yet" in str(note.render())
        assert not screen.query(PlotextPlot)


@pytest.mark.slow  # the whole TUI under Textual's pilot
async def test_one_call_in_a_narrow_terminal(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("hi")])
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test(size=(40, 24)) as pilot:
        await exchange(pilot, app, "hello")
        screen = await open_context(pilot, app)
        assert screen.report.calls is not None and len(screen.report.calls.calls) == 1
        chart, caption = rendered(app)
        assert "(1 call)" in caption and "folds (0)" in caption
        assert "●" in chart and FOLD_MARK not in chart
        plot = app.screen.query_one("#context-chart", PlotextPlot)
        assert 0 < plot.size.width <= 40
        assert max(len(line) for line in chart.splitlines()) <= plot.size.width
        panel = screen.query_one("#context", VerticalScroll)  # taller than the terminal:
        assert panel.max_scroll_y > 0
        await pilot.press("pagedown")  # ... the keys scroll it
        await wait_for(pilot, lambda: panel.scroll_y > 0, "the panel to scroll")


def seed_long_session(workspace: Path, calls: int, fold_every: int) -> str:
    """A session on disk with `calls` model calls whose context climbs and folds every
    `fold_every` calls (as the journal records them: usage, then the compaction)."""
    session = Session.create(workspace, model=TEST_MODEL)
    history = [
        SYSTEM,
        Message(role="user", content="a long task", id="m2"),
        Message(role="assistant", content="working on it", id="m3"),
    ]
    try:
        for message in history:
            session.message(message)
        for number in range(calls):
            climb = number % fold_every
            purpose = "compression" if climb == fold_every - 1 else "turn"
            session.usage(TEST_MODEL, Usage(prompt_tokens=800 + 150 * climb), purpose)
            if purpose == "compression":
                session.compaction(0, False, history)
    finally:
        session.close()
    return session.id


@pytest.mark.slow  # the whole TUI under Textual's pilot
async def test_thousands_of_calls_are_charted(server: ScriptedServer, workspace: Path) -> None:
    session_id = seed_long_session(workspace, calls=3_000, fold_every=15)
    app = make_app(server, workspace, resume=session_id, compaction=small_policy())
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        screen = await open_context(pilot, app)
        calls = screen.report.calls
        assert calls is not None and len(calls.calls) == 3_000 and len(calls.folds) == 200
        chart, caption = rendered(app)
        assert "3,000 calls; each point the largest of about" in caption
        assert "folds (200)" in caption
        assert FOLD_MARK in chart and f"{screen.report.trigger:,}" in chart
        assert "2,900" in chart  # the highest call (800 + 150 x 14), labelled on the axis
