"""Slash commands in the real app, and the same commands from the command palette."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Label

from agent.slash.chunk_search import MESSAGE_HEADING, pages
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import (
    COMPRESSION_MARK,
    SMALL_WINDOW,
    command,
    exchange,
    is_compression,
    make_app,
    model,
    palette_first,
    seed_session,
    small_policy,
    started,
    summary_reply,
    wait_for,
    work_finished,
)
from tui.screens.chunks import ChunkBrowserScreen
from tui.screens.context import ContextScreen
from tui.screens.model_picker import ModelPickerScreen
from tui.screens.sessions import SessionsScreen
from tui.widgets.app_markdown import AppMarkdown
from tui.widgets.compaction_marker import CompactionMarker
from tui.widgets.notice import Notice
from tui.widgets.status_bar import StatusBar
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def notices(app, kind: str | None = None) -> list[str]:
    return [n.text for n in app.query(Notice) if kind is None or n.kind == kind]


async def test_compact_with_a_focus_folds_and_shows_the_marker(
    server: ScriptedServer, workspace: Path
) -> None:

    server.fallback = model([Text("one " * 50), Text("two")], lambda _: summary_reply("alpha"))
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test() as pilot:
        await exchange(pilot, app, "first request")
        await exchange(pilot, app, "second request")
        await command(pilot, app, "/compact keep the file names")
        await wait_for(pilot, lambda: app.work_kind == "compact", "the fold to start")
        await wait_for(pilot, lambda: work_finished(app), "the fold")
        marker = app.query_one(CompactionMarker)
        assert marker.state == "done" and marker.entry.chunk == 1
        assert marker.text.startswith("folded ") and "into chunk 1 · alpha" in marker.text
        assert app.query_one(StatusBar).state == "idle"
        assert app.session is not None and len(app.session.archive.chunks()) == 1
    compression = [r for r in server.requests if is_compression(r.body)]
    assert len(compression) == 1
    assert "keep the file names" in compression[0].messages[-1]["content"]


async def test_fork_switches_to_the_child_session(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("one " * 50), Text("two")])
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test() as pilot:
        await exchange(pilot, app, "first")
        await exchange(pilot, app, "second")
        assert app.session is not None
        parent = app.session.id
        await command(pilot, app, "/fork")
        await wait_for(pilot, lambda: app.session is not None and app.session.id != parent, "fork")
        child = app.session.id
        assert app.query_one(StatusBar).session == child and child in app.query_one(StatusBar).line
        assert app.session.header["parent"] == parent
        assert any(f"new session {child}" in n for n in notices(app))
        await exchange(pilot, app, "in the child")  # the child session works
    assert server.requests[-1].messages[-1]["content"] == "in the child"


async def test_context_shows_the_ledgers_numbers(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("a reply")])
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test() as pilot:
        await exchange(pilot, app, "hello")
        await command(pilot, app, "/context")
        await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen), "the context view")
        report = app.screen.report
        agent = app.agent
        assert agent is not None and agent.compactor is not None
        ledger, budget = agent.compactor.tokens, agent.compactor.budget
        assert report.system_tokens == ledger.count(agent.history[0])
        assert report.tools_tokens == ledger.tools_tokens
        assert report.counted == ledger.estimate(agent.history)
        assert report.counted == (
            report.system_tokens
            + report.tools_tokens
            + report.summary_tokens
            + report.message_tokens
        )
        assert report.size == ledger.size(agent.history)
        assert (report.window, report.trigger) == (budget.window, budget.trigger_tokens)
        assert report.messages == len(agent.history) - 1
        table = app.screen.query_one("#context-table")
        assert str(table.get_cell("tool schemas", "tokens")) == f"{ledger.tools_tokens:,}"
        assert str(table.get_cell("window", "tokens")) == f"{SMALL_WINDOW:,}"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ContextScreen), "closing")
        status = app.query_one(StatusBar)
        assert status.context is not None and status.context.window == SMALL_WINDOW


async def test_chunks_lists_searches_and_opens(server: ScriptedServer, workspace: Path) -> None:
    topics = iter(["alpha topics", "beta topics"])
    server.fallback = model(
        [Text("zebra " * 40), Text("ok"), Text("yak " * 40), Text("ok")],
        lambda _: summary_reply(next(topics)),
    )
    # A window where no fold starts by itself beside the tool schemas: the two are /compact's.
    app = make_app(server, workspace, compaction=small_policy(context_window=5_000))
    async with app.run_test(size=(120, 40)) as pilot:
        for text in ("about zebras", "more"):
            await exchange(pilot, app, text)
        await command(pilot, app, "/compact")
        await wait_for(pilot, lambda: work_finished(app) and app.work_kind == "compact", "fold 1")
        for text in ("about yaks", "more again"):
            await exchange(pilot, app, text)
        await command(pilot, app, "/compact")
        await wait_for(pilot, lambda: len(app.query(CompactionMarker)) == 2, "fold 2")
        await wait_for(pilot, lambda: work_finished(app), "fold 2 to end")
        await command(pilot, app, "/chunks")
        await wait_for(pilot, lambda: isinstance(app.screen, ChunkBrowserScreen), "the browser")
        browser = app.screen
        assert isinstance(browser, ChunkBrowserScreen)
        await wait_for(pilot, lambda: browser.chunk_list.option_count == 2, "the chunk list")
        await wait_for(pilot, lambda: browser.current == 2, "the newest chunk shown")
        assert "beta topics" in str(browser.chunk_list.get_option_at_index(1).prompt)
        await pilot.press("ctrl+f")
        await pilot.press(*"zebras")
        await wait_for(pilot, lambda: [c.number for c in browser.shown] == [1], "the search")
        await wait_for(pilot, lambda: browser.current == 1, "chunk 1 shown")
        assert "about zebras" in browser.viewer.source
        assert "hits" in str(browser.chunk_list.get_option_at_index(0).prompt)
        search = browser.query_one("#chunk-search")
        search.value = "no such words anywhere"
        await wait_for(pilot, lambda: not browser.shown, "an empty result")
        await wait_for(pilot, lambda: "No chunk matches" in browser.viewer.source, "the note")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ChunkBrowserScreen), "closing")
        # Enter on a fold marker opens the browser at its chunk.
        first = app.query(CompactionMarker).first()
        first.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChunkBrowserScreen), "the browser")
        await wait_for(pilot, lambda: app.screen.current == 1, "chunk 1 from its marker")


async def test_sessions_lists_and_resumes(server: ScriptedServer, workspace: Path) -> None:
    earlier = seed_session(workspace, 3)
    server.fallback = model([Text("hi")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await exchange(pilot, app, "in the new session")
        current = app.session.id if app.session else ""
        await command(pilot, app, "/sessions")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), "the list")
        listed = [s.id for s in app.screen.sessions]
        assert set(listed) == {earlier, current}
        option_list = app.screen.query_one("#session-list")
        option_list.highlighted = listed.index(earlier)
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.session is not None and app.session.id == earlier, "resume"
        )
        assert app.query_one(StatusBar).session == earlier
        texts = [m.text for m in app.query(UserMessage)]
        assert texts[-1] == "question 2: word2 word2 word2"
        # Back to the first one by a prefix of its id, with /resume.
        await command(pilot, app, f"/resume {current[:-2]}")
        await wait_for(pilot, lambda: app.session is not None and app.session.id == current, "back")
        assert [m.text for m in app.query(UserMessage)] == ["in the new session"]


async def test_resume_refuses_a_session_open_elsewhere(
    server: ScriptedServer, workspace: Path
) -> None:
    other = seed_session(workspace, 1)
    held, _, _ = Session.resume(other)  # another pleat holds it
    try:
        app = make_app(server, workspace)
        async with app.run_test() as pilot:
            await started(pilot, app)
            mine = app.session.id if app.session else ""
            await command(pilot, app, f"/resume {other}")
            await wait_for(pilot, lambda: notices(app, "error"), "the refusal")
            assert "open in another pleat" in notices(app, "error")[0]
            assert app.session is not None and app.session.id == mine
    finally:
        held.close()


async def test_new_starts_an_empty_session(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("hi")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await exchange(pilot, app, "hello")
        first = app.session.id if app.session else ""
        await command(pilot, app, "/new")
        await wait_for(pilot, lambda: app.session is not None and app.session.id != first, "/new")
        assert not app.query(UserMessage)
        assert app.agent is not None and len(app.agent.history) == 1
        assert app.query_one(StatusBar).session == app.session.id


async def test_model_shows_and_switches(workspace: Path) -> None:
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL, "other-model"}) as server:
        server.fallback = model([Text("from one"), Text("from the other")])
        app = make_app(server, workspace)
        async with app.run_test() as pilot:
            await exchange(pilot, app, "first")
            await command(pilot, app, "/model")
            await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen), "the picker")
            title = app.screen.query_one("#model-picker-title", Label)
            assert f"now: {TEST_MODEL}" in str(title.render())
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0], "the picker closed")
            await command(pilot, app, "/model other-model")
            await wait_for(pilot, lambda: app.query_one(StatusBar).model == "other-model", "switch")
            await exchange(pilot, app, "second")
            assert app.agent is not None
            assert [m.content for m in app.agent.history if m.role == "user"] == ["first", "second"]
        assert [r.body["model"] for r in server.requests] == [TEST_MODEL, "other-model"]


async def test_help_lists_every_command(server: ScriptedServer, workspace: Path) -> None:
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await command(pilot, app, "/help")
        await wait_for(pilot, lambda: app.query(AppMarkdown), "the help")
        text = app.query(AppMarkdown).last().source
        for name in ("compact", "fork", "context", "chunks", "sessions", "resume", "new", "model"):
            assert f"`/{name}" in text
        assert "Ctrl+J" in text
        assert "The model's tools in this session: `read_file`" in text  # this session's
        assert "`web_search` joins where a search is set" in text
        assert "`web_search`," not in text  # none set here: not offered


async def test_unknown_command_and_paths(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("about that file")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await command(pilot, app, "/nope")
        await wait_for(pilot, lambda: notices(app, "error"), "the error line")
        assert notices(app, "error") == ["unknown command /nope (see /help)"]
        await exchange(pilot, app, "/etc/hosts looks odd")  # a path, not a command
    assert server.requests[-1].messages[-1]["content"] == "/etc/hosts looks odd"


async def test_quit_command(server: ScriptedServer, workspace: Path) -> None:
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await command(pilot, app, "/quit")
        await wait_for(pilot, lambda: not app.is_running, "the app to quit")


async def test_palette_runs_slash_commands(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text("hi")])
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test() as pilot:
        await exchange(pilot, app, "hello")
        await pilot.press("ctrl+p")
        await pilot.press(*"/context")
        await wait_for(pilot, lambda: palette_first(app) == "/context", "the palette's match")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen), "the context view")


async def test_compression_requests_reach_the_server_marked(
    server: ScriptedServer, workspace: Path
) -> None:
    """The mark the helpers rely on is what the engine sends."""
    server.fallback = model([Text("one " * 50), Text("two")])
    app = make_app(server, workspace, compaction=small_policy())
    async with app.run_test() as pilot:
        await exchange(pilot, app, "a")
        await exchange(pilot, app, "b")
        await command(pilot, app, "/compact")
        await wait_for(pilot, lambda: app.query(CompactionMarker), "the marker")
    assert any(COMPRESSION_MARK in (r.messages[-1].get("content") or "") for r in server.requests)


def test_chunk_pages_end_before_a_message() -> None:
    messages = [f"### m{n} · user\n\n```\n{'x' * 300}\n```\n" for n in range(40)]
    text = "# Archived conversation\n\n" + "\n".join(messages)
    found = pages(text, size=2_000)
    assert "".join(found) == text
    assert all(len(page) <= 2_000 for page in found)
    assert all(page.startswith(MESSAGE_HEADING[1:]) for page in found[1:])
    assert pages("short") == ["short"]
