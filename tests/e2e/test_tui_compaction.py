"""Compaction in the live app: mid-turn folds, idle folds, interruptions held while committing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import Config, ConfigError, load_config
from sessions.store import Session
from tests.support.scripted_server import ScriptedServer, Stall, Text, ToolCalls
from tests.support.tui_support import (
    assert_valid_history,
    exchange,
    is_compression,
    make_app,
    model,
    send,
    small_policy,
    summary_reply,
    wait_for,
    work_finished,
)
from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.compaction_marker import CompactionMarker
from tui.widgets.notice import Notice
from tui.widgets.prompt_input import PromptInput
from tui.widgets.status_bar import StatusBar
from tui.widgets.tool_call import ToolCallBlock

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# The window of these tests: the system prompt and the tool schemas take about 2,400 tokens of
# it, and a fold's summary message up to 600 more; what is left holds the exchanges each test
# folds (the tuned numbers below: a long reply of ~1,000 tokens, a 1,000-token read).
FOLD_WINDOW = 6_000
# Seconds of idleness before an idle fold in these tests: long enough that the test's own
# steps after a turn come first, short enough to keep the test quick.
IDLE_SECONDS = 0.3
# The tail keeps one message: after two exchanges the first one is what an idle fold folds.
IDLE_POLICY = small_policy(context_window=FOLD_WINDOW, tail_messages=1)
# A reply this long (about 1,000 tokens) makes the first exchange worth folding when idle.
LONG_REPLY = "words " * 1_000
# Tool results may take 40% of the small window, so reading big.txt forces a fold of the
# earlier exchange (a tail of 300 tokens keeps none of it).
BIG_READS = small_policy(context_window=FOLD_WINDOW, tool_output_share=0.4, tail_tokens=300)


async def test_a_fold_between_tool_calls_and_the_turn_finishes(
    server: ScriptedServer, workspace: Path
) -> None:

    (workspace / "big.txt").write_text("line of the big file\n" * 200)  # about 1,000 tokens
    server.fallback = model(
        [
            Text(LONG_REPLY),  # something worth folding before the read
            ToolCalls([("read_file", {"path": "big.txt"})]),
            ToolCalls([("list_dir", {"path": "."})]),
            Text("done reading"),
        ]
    )
    app = make_app(server, workspace, compaction=BIG_READS)
    async with app.run_test(size=(100, 40)) as pilot:
        await exchange(pilot, app, "earlier request")
        await exchange(pilot, app, "read big.txt, then list the directory")
        kinds = [
            type(w).__name__
            for w in app.conversation.children
            if isinstance(w, ToolCallBlock | CompactionMarker | AssistantMessage)
        ]
        assert "CompactionMarker" in kinds
        fold = kinds.index("CompactionMarker")
        assert "ToolCallBlock" in kinds[:fold] and "ToolCallBlock" in kinds[fold + 1 :]
        marker = app.query_one(CompactionMarker)
        assert marker.state == "done" and "into chunk 1" in marker.text, marker.text
        assert app.query(AssistantMessage).last().source == "done reading"
        assert not [n for n in app.query(Notice) if n.kind == "error"]
        assert app.agent is not None
        assert_valid_history(app.agent.history)
        assert app.query_one(StatusBar).state == "idle"
    assert any(is_compression(r.body) for r in server.requests)


async def test_an_idle_fold_starts_and_a_keypress_cancels_it(
    server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = model([Text(LONG_REPLY), Text("two")], lambda _: Stall(5))
    app = make_app(server, workspace, compaction=IDLE_POLICY, idle_compaction_seconds=IDLE_SECONDS)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.warm, "the warm-up")
        await exchange(pilot, app, "one")
        await exchange(pilot, app, "two")
        assert app.agent is not None and app.session is not None
        before = [(m.id, m.content) for m in app.agent.history]
        await wait_for(pilot, lambda: app.work_kind == "idle" and app.busy, "the idle fold")
        await wait_for(pilot, lambda: any(is_compression(r.body) for r in server.requests), "call")
        marker = app.query_one(CompactionMarker)
        assert marker.state == "running" and "idle" in marker.text
        assert app.query_one(StatusBar).folding == "running"
        await pilot.press("x")
        await wait_for(pilot, lambda: work_finished(app), "the cancellation")
        assert app.turn is not None and app.turn.state.name == "CANCELLED"
        assert not app.query(CompactionMarker)  # its line went away with it
        assert not app.query(Notice)
        assert app.query_one(PromptInput).value == "x"  # the key still typed
        assert [(m.id, m.content) for m in app.agent.history] == before
        assert app.session.archive.chunks() == []
        assert app.query_one(StatusBar).folding == "idle"
        assert app.query_one(StatusBar).state == "idle"


async def test_an_idle_fold_completes_on_its_own(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = model([Text(LONG_REPLY), Text("two")], lambda _: summary_reply("idle"))
    app = make_app(server, workspace, compaction=IDLE_POLICY, idle_compaction_seconds=IDLE_SECONDS)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.warm, "the warm-up")
        await exchange(pilot, app, "one")
        await exchange(pilot, app, "two")
        await wait_for(pilot, lambda: app.query(CompactionMarker), "the idle fold")
        await wait_for(pilot, lambda: work_finished(app), "its end")
        marker = app.query_one(CompactionMarker)
        assert marker.state == "done" and "into chunk 1 · idle" in marker.text
        assert "freed too little" not in marker.text, marker.text
        assert app.agent is not None and app.agent.history[1].meta.get("kind") == "summary"
        assert app.session is not None and len(app.session.archive.chunks()) == 1
        await pilot.pause(IDLE_SECONDS * 2)
        assert len(app.query(CompactionMarker)) == 1  # one idle fold per pause


async def test_a_small_context_is_not_folded_when_idle(
    server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = model([Text("short")])
    app = make_app(server, workspace, compaction=IDLE_POLICY, idle_compaction_seconds=IDLE_SECONDS)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.warm, "the warm-up")
        await exchange(pilot, app, "one")
        await pilot.pause(IDLE_SECONDS * 3)
        assert app.work_kind == "turn" and not app.query(CompactionMarker)
    assert not any(is_compression(r.body) for r in server.requests)


async def test_escape_during_the_commit_waits_until_the_fold_is_recorded(
    server: ScriptedServer, workspace: Path
) -> None:
    """Esc pressed once the summary is in (the chunk is about to be written) waits for the
    swap and the journal record; the session then resumes without any repair."""
    server.fallback = model([Text(LONG_REPLY), Text("two")], lambda _: summary_reply("held"))
    app = make_app(server, workspace, compaction=small_policy(context_window=FOLD_WINDOW))
    async with app.run_test() as pilot:
        await exchange(pilot, app, "one")
        await exchange(pilot, app, "two")
        assert app.agent is not None and app.agent.compactor is not None
        compactor = app.agent.compactor

        def press_escape_at_commit(step: str) -> None:
            if step == "summarized":
                app.action_interrupt()  # as if Esc arrived right now

        compactor.step_hook = press_escape_at_commit
        await send(pilot, app, "/compact")
        await wait_for(pilot, lambda: app.work_kind == "compact", "the fold")
        await wait_for(pilot, lambda: work_finished(app), "the fold's end")
        marker = app.query_one(CompactionMarker)
        assert marker.state == "done" and "chunk 1" in marker.text
        assert app.agent.history[1].meta.get("kind") == "summary"
        session_id = app.session.id if app.session else ""
    resumed, history, notes = Session.resume(session_id)
    try:
        assert notes == []  # nothing set aside: the chunk was recorded
        assert history[1].meta.get("kind") == "summary"
        assert [c.number for c in resumed.archive.chunks()] == [1]
    finally:
        resumed.close()


async def test_escape_cancels_a_manual_fold_before_it_commits(
    server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = model([Text(LONG_REPLY), Text("two")], lambda _: Stall(5))
    app = make_app(server, workspace, compaction=small_policy(context_window=FOLD_WINDOW))
    async with app.run_test() as pilot:
        await exchange(pilot, app, "one")
        await exchange(pilot, app, "two")
        assert app.agent is not None and app.session is not None
        before = [m.id for m in app.agent.history]
        await send(pilot, app, "/compact")
        await wait_for(pilot, lambda: any(is_compression(r.body) for r in server.requests), "call")
        await pilot.press("escape")
        await wait_for(pilot, lambda: work_finished(app), "the cancellation")
        marker = app.query_one(CompactionMarker)
        assert marker.state == "cancelled" and "history unchanged" in marker.text
        assert [m.id for m in app.agent.history] == before
        assert app.session.archive.chunks() == []
        await exchange(pilot, app, "three")  # and the session goes on


async def test_escape_during_a_turns_fold_commit_interrupts_the_turn_after_it(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("line of the big file\n" * 200)
    server.fallback = model(
        [
            Text(LONG_REPLY),  # something worth folding before the read
            ToolCalls([("read_file", {"path": "big.txt"})]),
            Stall(5),  # the call after the fold: the held Esc must stop the turn before it
        ]
    )
    app = make_app(server, workspace, compaction=BIG_READS)
    async with app.run_test() as pilot:
        await exchange(pilot, app, "earlier request")
        assert app.agent is not None and app.agent.compactor is not None

        def press_escape_at_commit(step: str) -> None:
            if step == "summarized":
                app.action_interrupt()

        app.agent.compactor.step_hook = press_escape_at_commit
        await send(pilot, app, "read big.txt")
        await wait_for(pilot, lambda: work_finished(app), "the interrupted turn")
        assert app.turn is not None and app.turn.state.name == "CANCELLED"
        marker = app.query_one(CompactionMarker)
        assert marker.state == "done", marker.text
        assert "interrupted" in [n.text for n in app.query(Notice)]
        assert_valid_history(app.agent.history)
        assert app.agent.history[1].meta.get("kind") == "summary"
        requests = len(server.requests)
        session_id = app.session.id if app.session else ""
    assert not any(is_compression(r.body) for r in server.requests[requests:])
    resumed, _, notes = Session.resume(session_id)
    try:
        assert notes == [] and [c.number for c in resumed.archive.chunks()] == [1]
    finally:
        resumed.close()


def test_idle_compaction_seconds_is_a_validated_setting(tmp_path: Path) -> None:
    empty = tmp_path / "none.toml"
    assert Config().idle_compaction_seconds == 180.0
    loaded = load_config(environ={"PLEAT_IDLE_COMPACTION_SECONDS": "0"}, path=empty)
    assert loaded.idle_compaction_seconds == 0.0  # 0 disables it
    with pytest.raises(ConfigError, match="PLEAT_IDLE_COMPACTION_SECONDS"):
        load_config(environ={"PLEAT_IDLE_COMPACTION_SECONDS": "-1"}, path=empty)
