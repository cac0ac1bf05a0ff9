"""Sub-agents in the TUI under Textual's pilot: the approval says which task asks, the task's
block follows its sub-agent and opens its transcript (also in a resumed session)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label
from textual.widgets._collapsible import CollapsibleTitle

from agent.subagents.team import SUBAGENT_NOTE
from tests.support.scripted_server import Reply, ScriptedServer, Text, ToolCalls
from tests.support.tui_support import asked, make_app, send, started, wait_for, work_finished
from tui.app import PleatApp
from tui.screens.approval import ApprovalScreen
from tui.screens.subagent import SubagentScreen
from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.tool_call import ToolCallBlock
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def respond(body: dict[str, Any]) -> Reply:
    """The parent hands out one task; its sub-agent writes greeting.txt, then reports."""
    messages = body["messages"]
    if SUBAGENT_NOTE in (messages[0].get("content") or ""):
        if len(messages) == 2:
            return ToolCalls([("write_file", {"path": "greeting.txt", "content": "hello\n"})])
        return Text("greeting.txt holds hello")
    if messages[-1]["role"] == "user":
        task = {"description": "write the greeting", "prompt": "write hello into greeting.txt"}
        return ToolCalls([("task", task)])
    return Text("the sub-agent wrote it")


def task_block(app: PleatApp) -> ToolCallBlock:
    (block,) = [b for b in app.conversation.query(ToolCallBlock) if b.summary.startswith("task")]
    return block


async def open_transcript(pilot: Any, app: PleatApp, *, key: bool) -> SubagentScreen:
    """Open the task's transcript from its block: Enter on its title, or a click on it."""
    title = task_block(app).query_one(CollapsibleTitle)
    if key:
        title.focus()
        await pilot.press("enter")
    else:
        await pilot.click(title)
    await wait_for(pilot, lambda: isinstance(app.screen, SubagentScreen), "the transcript")
    screen = app.screen
    assert isinstance(screen, SubagentScreen)
    await wait_for(pilot, lambda: bool(screen.query(AssistantMessage)), "its entries")
    return screen


def shown(screen: SubagentScreen) -> tuple[list[str], list[str], list[str]]:
    """The transcript's prompts, tool blocks and replies."""
    return (
        [str(u.entry.text) for u in screen.query(UserMessage)],
        [b.summary for b in screen.query(ToolCallBlock)],
        [a.entry.text for a in screen.query(AssistantMessage)],
    )


async def test_a_task_asks_by_name_and_its_block_opens_the_subagents_transcript(
    server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = respond
    app = make_app(server, workspace)  # ask mode: the sub-agent's write asks
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        await send(pilot, app, "have a sub-agent write the greeting")
        await asked(pilot, app, ApprovalScreen, "the approval")
        title = str(app.screen.query_one("#approval-title", Label).render())
        assert "Allow write_file?" in title and "write the greeting" in title
        running = task_block(app)  # while it runs: what its sub-agent does
        assert running.entry.subsession is not None and "↳ write_file(" in running.title
        await pilot.press("y")
        await wait_for(pilot, lambda: work_finished(app), "the turn")
        assert (workspace / "greeting.txt").read_text() == "hello\n"
        block = task_block(app)
        assert block.entry.subsession is not None and "sub-agent transcript" in block.title

        screen = await open_transcript(pilot, app, key=False)
        assert shown(screen) == (
            ["write hello into greeting.txt"],
            ["write_file(path='greeting.txt', content='hello\\n')"],
            ["greeting.txt holds hello"],
        )
        assert app.conversation.id == "conversation"  # the app's own is still the main one
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.screen_stack[0], "back")
        assert task_block(app).collapsed  # the title opened the transcript, not the block
        session_id = app.session.id if app.session else ""

    resumed = make_app(server, workspace, resume=session_id)
    async with resumed.run_test(size=(120, 40)) as pilot:
        await started(pilot, resumed)
        screen = await open_transcript(pilot, resumed, key=True)
        assert shown(screen)[2] == ["greeting.txt holds hello"]
