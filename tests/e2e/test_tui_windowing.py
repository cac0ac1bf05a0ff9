"""Resume shows the latest messages; a bounded window of widgets; older ones on scroll-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.conversation.entries import FoldEntry, ReplyEntry, UserEntry
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import (
    exchange,
    make_app,
    model,
    seed_session,
    small_policy,
    started,
    wait_for,
)
from tui.widgets.compaction_marker import CompactionMarker
from tui.widgets.conversation import INITIAL, LOAD_BATCH, MAX_WIDGETS, PRUNE_SLACK
from tui.widgets.status_bar import StatusBar
from tui.widgets.tool_call import ToolCallBlock
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# A long session: 1,000 exchanges, 2,000 messages after the system prompt.
LONG_SESSION_EXCHANGES = 1_000


async def test_resume_shows_the_latest_messages(server: ScriptedServer, workspace: Path) -> None:
    session_id = seed_session(workspace, 30)
    app = make_app(server, workspace, resume=session_id)
    async with app.run_test() as pilot:
        await started(pilot, app)
        conversation = app.conversation
        assert len(conversation.entries) == 60
        assert conversation.mounted_count == INITIAL
        users = [w.text for w in app.query(UserMessage)]
        assert users[-1] == "question 29: word29 word29 word29"
        assert conversation.max_scroll_y == 0 or conversation.scroll_y == conversation.max_scroll_y
        assert app.query_one(StatusBar).session == session_id


async def test_resume_of_a_folded_session_starts_with_its_marker(
    server: ScriptedServer, workspace: Path
) -> None:

    server.fallback = model([Text("one " * 50), Text("two"), Text("three")])
    first = make_app(server, workspace, compaction=small_policy())
    async with first.run_test() as pilot:
        for text in ("a", "b", "c"):
            await exchange(pilot, first, text)
        first.query_one("#prompt").value = "/compact"
        await pilot.press("enter")
        await wait_for(pilot, lambda: first.query(CompactionMarker), "the fold")
        await wait_for(pilot, lambda: first.turn is not None and first.turn.is_finished, "end")
        session_id = first.session.id if first.session else ""
        live = [m.id for m in first.agent.history] if first.agent else []
    second = make_app(server, workspace, compaction=small_policy(), resume=session_id)
    async with second.run_test() as pilot:
        await started(pilot, second)
        entries = second.conversation.entries
        assert isinstance(entries[0], FoldEntry) and entries[0].chunk == 1
        assert "chunk 1" in entries[0].text and "test topics" in entries[0].text
        assert isinstance(entries[-1], ReplyEntry) and entries[-1].text == "three"
        assert second.agent is not None and [m.id for m in second.agent.history] == live


async def test_resume_rebuilds_tool_blocks(server: ScriptedServer, workspace: Path) -> None:
    from tests.support.scripted_server import ToolCalls

    (workspace / "a.txt").write_text("alpha\n")
    server.fallback = model([ToolCalls([("read_file", {"path": "a.txt"})]), Text("read it")])
    first = make_app(server, workspace)
    async with first.run_test() as pilot:
        await exchange(pilot, first, "read a.txt")
        session_id = first.session.id if first.session else ""
    second = make_app(server, workspace, resume=session_id)
    async with second.run_test() as pilot:
        await started(pilot, second)
        block = second.query_one(ToolCallBlock)
        assert block.title.startswith("✓") and "a.txt" in block.summary
        assert block.entry.result is not None and "alpha" in block.entry.result


async def test_a_long_session_keeps_a_bounded_window(
    server: ScriptedServer, workspace: Path
) -> None:
    session_id = seed_session(workspace, LONG_SESSION_EXCHANGES)
    app = make_app(server, workspace, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        conversation = app.conversation
        total = 2 * LONG_SESSION_EXCHANGES
        assert len(conversation.entries) == total
        assert len(conversation.children) == INITIAL == conversation.mounted_count
        # Scrolling to the top mounts the previous batch, keeping the reader's place.
        top_before = conversation.children[0]
        conversation.scroll_home(animate=False)
        await wait_for(pilot, lambda: conversation.mounted_count == INITIAL + LOAD_BATCH, "older")
        assert conversation.first == total - INITIAL - LOAD_BATCH
        assert conversation.children[LOAD_BATCH] is top_before
        await wait_for(pilot, lambda: conversation.scroll_y > 0, "the place kept")
        assert isinstance(conversation.entries[conversation.first], UserEntry)
        # Back at the end, new lines keep the mounted widgets within the budget.
        conversation.scroll_end(animate=False)
        lines = 2 * MAX_WIDGETS
        for n in range(lines):
            await conversation.add_notice(f"note {n}")
            conversation.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert conversation.mounted_widgets <= MAX_WIDGETS + PRUNE_SLACK
        assert len(conversation.entries) == total + lines
        assert conversation.children[-1].text == f"note {lines - 1}"
        assert conversation.first == len(conversation.entries) - conversation.mounted_count


async def test_page_keys_scroll_the_conversation_from_the_prompt(
    server: ScriptedServer, workspace: Path
) -> None:
    session_id = seed_session(workspace, 30)
    app = make_app(server, workspace, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        conversation = app.conversation
        await wait_for(pilot, lambda: conversation.max_scroll_y > 0, "a scrollable view")
        bottom = conversation.scroll_y
        assert app.focused is app.prompt
        await pilot.press("pageup")
        await wait_for(pilot, lambda: conversation.scroll_y < bottom, "scrolling up")
        await pilot.press("pagedown", "pagedown")
        await wait_for(pilot, lambda: conversation.scroll_y == bottom, "back at the end")


def seed_folded_session(workspace: Path, exchanges: int, every: int, tail: int) -> str:
    """A session of `exchanges` user/assistant pairs folded every `every` pairs, each fold
    archiving all but the last `tail` messages into a chunk and journaling the rebuilt history
    (system, summary, tail), as a real fold does."""
    from sessions.messages import Message
    from sessions.store import Session

    session = Session.create(workspace, model="scripted-model")
    system = Message(role="system", content="You are pleat.", id="m1")
    live: list[Message] = []
    try:
        session.message(system)
        for n in range(exchanges):
            for message in (
                Message(role="user", content=f"question {n}", id=f"m{2 * n + 2}"),
                Message(role="assistant", content=f"answer {n}", id=f"m{2 * n + 3}"),
            ):
                session.message(message)
                live.append(message)
            if (n + 1) % every == 0:
                folded = [m for m in live[:-tail] if m.meta.get("kind") != "summary"]
                chunk = session.archive.write_chunk(folded, topics=f"to {n}", tokens=1)
                meta = {"kind": "summary", "injected": True, "summary": "s", "chunk": chunk.number}
                summary = Message(role="user", content="s", id=f"s{chunk.number}", meta=meta)
                live = [summary, *live[-tail:]]
                session.compaction(chunk.number, False, [system, *live])
    finally:
        session.close()
    return session.id


async def test_a_long_folded_session_shows_its_live_part_in_a_bounded_window(
    server: ScriptedServer, workspace: Path
) -> None:
    # 2,000 messages, 20 folds: what the conversation holds and mounts does not grow with
    # the folded past (its messages are in the chunks), and scrolling back reads the live part
    # back to the last fold's marker, in order.
    session_id = seed_folded_session(workspace, 1_000, every=50, tail=10)
    app = make_app(server, workspace, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await started(pilot, app)
        conversation = app.conversation
        assert len(conversation.entries) == 1 + 10  # the marker of fold 20, then its tail
        assert conversation.mounted_widgets <= MAX_WIDGETS + PRUNE_SLACK
        marker = conversation.entries[0]
        assert isinstance(marker, FoldEntry) and marker.chunk == 20
        users = [w.text for w in app.query(UserMessage)]
        assert users == [f"question {n}" for n in range(995, 1_000)]
