"""The chat UI end to end: real Textual pilot, real agent, real HTTP to the scripted server."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

from conftest import TEST_API_KEY, TEST_MODEL
from scripted_server import ScriptedServer, Stall, Text, ToolCalls
from textual.pilot import Pilot

from agent.config import Config
from agent.messages import Message, unanswered_calls
from tui.app import PleatApp
from tui.screens.approval import ApprovalScreen
from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.diff_view import DiffView
from tui.widgets.notice import Notice
from tui.widgets.prompt_input import PromptInput
from tui.widgets.status_bar import StatusBar
from tui.widgets.tool_call import ToolCallBlock
from tui.widgets.user_message import UserMessage

# Pilot pauses of this many seconds between checks of a condition ...
POLL_SECONDS = 0.05
# ... and at most this many: 30 s, room for litellm's first import (about 4 s) on a slow machine.
MAX_POLLS = 600


def make_app(server: ScriptedServer, workspace: Path, **kwargs: bool) -> PleatApp:
    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, max_retries=0)
    return PleatApp(config, workspace, **kwargs)


async def wait_for(pilot: Pilot, condition: Callable[[], object], what: str) -> None:
    for _ in range(MAX_POLLS):
        if condition():
            return
        await pilot.pause(POLL_SECONDS)
    raise AssertionError(f"timed out waiting for {what}")


def turn_finished(app: PleatApp) -> bool:
    return app.turn is not None and app.turn.is_finished


async def send(pilot: Pilot, app: PleatApp, text: str) -> None:
    """Type a prompt into the input and press Enter; wait until the turn has started."""
    app.query_one(PromptInput).value = text
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.turn is not None, "the turn to start")


def assert_valid_history(history: list[Message]) -> None:
    """System first, every tool call answered, no two user messages in a row."""
    assert history[0].role == "system"
    for before, message in itertools.pairwise(history):
        assert not (before.role == "user" and message.role == "user")
    assert not unanswered_calls(history)


async def test_chat_streams_the_reply(server: ScriptedServer, workspace: Path) -> None:
    reply = "Hello! Here is code:\n\n```python\nprint('hi')\n```\n\nThat is all."
    server.push(Text(reply))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await pilot.press(*"hi pleat")
        await pilot.press("enter")
        await wait_for(pilot, lambda: turn_finished(app), "the reply")
        assert app.query_one(UserMessage).text == "hi pleat"
        assert app.query_one(AssistantMessage).source == reply
        status = app.query_one(StatusBar)
        assert status.state == "idle"
        assert status.usage is not None and status.usage.prompt_tokens > 0
        assert TEST_MODEL in status.line
        assert app.query_one(PromptInput).value == ""
        assert app.session is not None
    assert app.session is None  # closed (journal flushed, lock released) when the app ends
    assert server.requests[0].messages[-1] == {"role": "user", "content": "hi pleat"}


async def test_prompt_history_on_up_and_down(server: ScriptedServer, workspace: Path) -> None:
    server.push(Text("one"), Text("two"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        for text in ("first", "second"):
            await send(pilot, app, text)
            await wait_for(pilot, lambda: turn_finished(app), "the reply")
        prompt = app.query_one(PromptInput)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.value == "second"
        await pilot.press("up", "up")
        assert prompt.value == "first"
        await pilot.press("down", "down")
        assert prompt.value == "draft"


async def test_write_approved_with_y(server: ScriptedServer, workspace: Path) -> None:
    server.push(ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]), Text("done"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "write a.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval")
        assert not (workspace / "a.txt").exists()
        diff = app.screen.query_one(DiffView).diff
        assert "+++ b/a.txt" in diff and "+hi" in diff
        await pilot.press("y")
        await wait_for(pilot, lambda: turn_finished(app), "the turn to end")
        assert (workspace / "a.txt").read_text() == "hi"
        block = app.query_one(ToolCallBlock)
        assert block.title.startswith("✓") and "write_file" in block.title
        assert "+hi" in block.query_one(DiffView).diff
        assert app.query(AssistantMessage).last().source == "done"
    assert not server.requests[1].messages[-1]["content"].startswith("refused")


async def test_write_refused_with_n(server: ScriptedServer, workspace: Path) -> None:
    server.push(ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]), Text("ok"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "write a.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval")
        await pilot.press("n")
        await wait_for(pilot, lambda: turn_finished(app), "the turn to end")
        assert app.query_one(ToolCallBlock).title.startswith("✗")
    assert not (workspace / "a.txt").exists()
    result = server.requests[1].messages[-1]
    assert result["role"] == "tool" and result["content"].startswith("refused")


async def test_always_asks_once_per_tool(server: ScriptedServer, workspace: Path) -> None:
    server.push(
        ToolCalls([("write_file", {"path": "a.txt", "content": "a"})]),
        Text("one"),
        ToolCalls([("write_file", {"path": "b.txt", "content": "b"})]),
        Text("two"),
    )
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "write a")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval")
        await pilot.press("a")
        await wait_for(pilot, lambda: turn_finished(app), "the first turn")
        await send(pilot, app, "write b")
        await wait_for(
            pilot,
            lambda: turn_finished(app) or isinstance(app.screen, ApprovalScreen),
            "the second turn",
        )
        assert not isinstance(app.screen, ApprovalScreen), "asked again despite 'always'"
        assert app.query(AssistantMessage).last().source == "two"
    assert (workspace / "a.txt").read_text() == "a"
    assert (workspace / "b.txt").read_text() == "b"


async def test_yes_flag_never_asks(server: ScriptedServer, workspace: Path) -> None:
    server.push(ToolCalls([("write_file", {"path": "a.txt", "content": "a"})]), Text("done"))
    app = make_app(server, workspace, approve_everything=True)
    async with app.run_test() as pilot:
        await send(pilot, app, "write a")
        await wait_for(
            pilot,
            lambda: turn_finished(app) or isinstance(app.screen, ApprovalScreen),
            "the turn",
        )
        assert not isinstance(app.screen, ApprovalScreen)
    assert (workspace / "a.txt").read_text() == "a"


async def test_escape_interrupts_a_stalled_turn(server: ScriptedServer, workspace: Path) -> None:
    server.push(Stall(5))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "slow")
        await wait_for(pilot, lambda: server.requests, "the request to reach the server")
        await pilot.press("escape")
        await wait_for(pilot, lambda: turn_finished(app), "the interruption")
        assert app.turn is not None and app.turn.state.name == "CANCELLED"
        notes = [n.text for n in app.query(Notice)]
        assert "interrupted" in notes
        assert app.query_one(StatusBar).state == "idle"
        assert app.agent is not None
        history = app.agent.history
        assert history[-1].role == "assistant" and "interrupted" in (history[-1].content or "")
        assert_valid_history(history)


async def test_provider_error_is_one_red_line(workspace: Path) -> None:
    # Nothing listens on port 9 (discard) on a test machine: the connection is refused.
    config = Config(model=TEST_MODEL, api_base="http://127.0.0.1:9/v1", api_key="x", max_retries=0)
    app = PleatApp(config, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "hello?")
        await wait_for(pilot, lambda: turn_finished(app), "the failure")
        errors = [n for n in app.query(Notice) if n.kind == "error"]
        assert len(errors) == 1 and "\n" not in errors[0].text
        assert "127.0.0.1:9" in errors[0].text


async def test_without_a_model_the_app_explains_configuration(workspace: Path) -> None:
    app = PleatApp(Config(), workspace)
    async with app.run_test() as pilot:
        assert app.agent is None
        help_text = app.query_one(".help").source
        for hint in ("--model", "PLEAT_MODEL", "config.toml", "ollama/llama3", "OPENAI_API_KEY"):
            assert hint in help_text
        app.query_one(PromptInput).value = "hello?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.query(".help")) == 2, "the help again")
        assert app.query_one(UserMessage).text == "hello?"
        assert app.is_running


async def test_config_error_text_is_shown(workspace: Path) -> None:
    app = PleatApp(None, workspace, "no model configured: pass --model")
    async with app.run_test():
        assert "no model configured: pass --model" in app.query_one(".help").source


async def test_ctrl_c_twice_quits(workspace: Path) -> None:
    app = PleatApp(Config(), workspace)
    async with app.run_test() as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        assert any("Ctrl+C again" in str(n.message) for n in app._notifications)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running, "the app to quit")


async def test_quit_with_the_approval_open(server: ScriptedServer, workspace: Path) -> None:
    server.push(ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]), Text("ok"))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "write a.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, "the app to quit")
    assert not (workspace / "a.txt").exists()
    assert app.agent is not None
    assert_valid_history(app.agent.history)
    assert app.agent.history[-1].role == "tool" and app.agent.history[-1].content.startswith(
        "cancelled"
    )
