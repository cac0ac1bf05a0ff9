"""The chat UI end to end: real Textual pilot, real agent, real HTTP to the scripted server."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Label
from textual.widgets.markdown import MarkdownFence

from agent.config import Config
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Stall, Text, ToolCalls
from tests.support.tui_support import (
    asked,
    assert_valid_history,
    command,
    exchange,
    make_app,
    send,
    started,
    wait_for,
)
from tests.support.tui_support import work_finished as turn_finished
from tui.app import PleatApp
from tui.screens.approval import ApprovalScreen
from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.diff_view import DiffView
from tui.widgets.notice import Notice
from tui.widgets.prompt_input import PromptInput
from tui.widgets.status_bar import StatusBar
from tui.widgets.tool_call import ToolCallBlock
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


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
        await asked(pilot, app, ApprovalScreen, "the approval")
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
        await asked(pilot, app, ApprovalScreen, "the approval")
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
        await asked(pilot, app, ApprovalScreen, "the approval")
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


@pytest.mark.parametrize("switch", ["/new", "/fork"])
async def test_always_is_forgotten_when_the_session_switches(
    server: ScriptedServer, workspace: Path, switch: str
) -> None:
    """ "Always" was said for one session: every switch (one path, the session controller)
    forgets it, so the next session asks again."""
    server.push(
        ToolCalls([("write_file", {"path": "a.txt", "content": "a"})]),
        Text("one"),
    )
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "write a")
        await asked(pilot, app, ApprovalScreen, "the approval")
        await pilot.press("a")
        await wait_for(pilot, lambda: turn_finished(app), "the first turn")
        assert [str(rule) for rule in app.approvals.permissions.session_allow] == ["write_file"]
        first = app.session.id if app.session else ""
        if switch == "/fork":
            server.fallback = lambda _: Text(
                "<topics>t</topics><continues_previous>false</continues_previous>"
                "<summary>wrote a</summary>"
            )
        app.query_one(PromptInput).value = switch
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.session is not None and app.session.id != first, "the switch"
        )
        await wait_for(pilot, lambda: turn_finished(app), "the switch's work")
        assert app.approvals.permissions.session_allow == []
        server.push(ToolCalls([("write_file", {"path": "b.txt", "content": "b"})]), Text("two"))
        await send(pilot, app, "write b")
        await asked(pilot, app, ApprovalScreen, "asked again")


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
    app = PleatApp(Config(local_model_servers=()), workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
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
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert "no model configured: pass --model" in app.query_one(".help").source


async def test_ctrl_c_twice_quits(workspace: Path) -> None:
    app = PleatApp(Config(local_model_servers=()), workspace)
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
        await asked(pilot, app, ApprovalScreen, "the approval")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, "the app to quit")
    assert not (workspace / "a.txt").exists()
    assert app.agent is not None
    assert_valid_history(app.agent.history)
    assert app.agent.history[-1].role == "tool" and app.agent.history[-1].content.startswith(
        "cancelled"
    )


async def test_a_streamed_code_fence_survives_a_recompose(
    server: ScriptedServer, workspace: Path
) -> None:
    """The reply is not parsed again when the stream ends (tui.widgets.assistant_message):
    safe because Textual keeps a streamed fence's code (textual#6518); this pins that."""
    code = "def greet(name):\n    return f'hello {name}'\n\nprint(greet('you'))"
    server.push(Text(f"Here:\n\n```python\n{code}\n```\n\nDone."))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "show code")
        await wait_for(pilot, lambda: turn_finished(app), "the reply")
        fence = app.query_one(MarkdownFence)
        assert fence.code == code
        await fence.recompose()
        await pilot.pause()
        assert "print(greet('you'))" in str(fence.query_one(Label).render())


async def test_status_sums_the_cost_when_litellm_knows_the_prices(workspace: Path) -> None:
    """A model litellm has prices for (served by the scripted server): the status shows the
    summed cost of the calls; the scripted model has none, so it shows no cost."""
    from tests.support.constants import TEST_API_KEY

    with ScriptedServer(api_key=TEST_API_KEY) as server:
        server.push(Text("one"), Text("two"))
        config = Config(
            model="gpt-4o-mini", api_base=server.base_url, api_key=TEST_API_KEY, max_retries=0
        )
        app = PleatApp(config, workspace)
        async with app.run_test() as pilot:
            status = app.query_one(StatusBar)
            await send(pilot, app, "first")
            await wait_for(pilot, lambda: turn_finished(app), "the first reply")
            first = status.cost
            assert first is not None and first > 0
            await send(pilot, app, "second")
            await wait_for(pilot, lambda: turn_finished(app), "the second reply")
            assert status.cost is not None and status.cost > first
            assert f"${status.cost:.4f}" in status.line


async def test_resize_while_streaming(server: ScriptedServer, workspace: Path) -> None:
    """The terminal changes size mid-reply: the stream keeps rendering, nothing is lost."""
    reply = "\n\n".join(f"Paragraph {n}: " + "words in a long reply " * 30 for n in range(40))
    server.push(Text(reply))
    app = make_app(server, workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, app, "a long answer, please")
        await wait_for(pilot, lambda: app.query(AssistantMessage), "the reply to start")
        for size in ((60, 20), (140, 45), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
        await wait_for(pilot, lambda: turn_finished(app), "the reply to end")
        assert app.query_one(AssistantMessage).source == reply
        assert app.agent is not None
        assert app.agent.history[-1].content == reply
        assert_valid_history(app.agent.history)
        assert not app.query(Notice)


async def test_thinking_is_shown_collapsed(server: ScriptedServer, workspace: Path) -> None:
    from tui.widgets.thinking_block import ThinkingBlock

    server.push(Text("The answer is 42.", reasoning="Six times seven is forty-two."))
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await send(pilot, app, "what is six times seven?")
        await wait_for(pilot, lambda: turn_finished(app), "the reply")
        block = app.query_one(ThinkingBlock)
        assert block.collapsed
        assert block.title == "thought · 29 characters"
        assert block.entry.text == "Six times seven is forty-two."
        assert app.query_one(AssistantMessage).source == "The answer is 42."


async def test_the_status_bar_shows_spend_against_the_cap(
    server: ScriptedServer, workspace: Path
) -> None:
    app = make_app(server, workspace, max_budget_usd=1.5)
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert "$0.0000 of $1.50 cap" in app.query_one(StatusBar).line


async def test_model_names_a_model_when_none_was_configured(workspace: Path) -> None:
    # A server that lists no model (GET /v1/models is empty): nothing is found at start.
    with ScriptedServer(api_key=TEST_API_KEY) as server:
        server.push(Text("hello from the model"))
        app = make_app(server, workspace, model=None)
        async with app.run_test() as pilot:
            await started(pilot, app)
            assert app.agent is None and server.listings == 1
            await command(pilot, app, f"/model {TEST_MODEL}")
            status = app.query_one(StatusBar)
            await wait_for(pilot, lambda: TEST_MODEL in status.line, "the first session")
            assert app.agent is not None
            await exchange(pilot, app, "hi")
            assert app.query(AssistantMessage).last().source == "hello from the model"
    assert server.requests[-1].body["model"] == TEST_MODEL
