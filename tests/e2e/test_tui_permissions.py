"""Permission modes in the TUI under Textual's pilot: Shift+Tab, plan mode, plan review, rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Label, Markdown

from agent.permissions.plan_mode import PLAN_NOTE
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import asked, exchange, make_app, send, started, wait_for
from tests.support.tui_support import work_finished as turn_finished
from tui.app import PleatApp
from tui.screens.approval import ApprovalScreen
from tui.screens.plan import PlanScreen
from tui.widgets.app_markdown import AppMarkdown
from tui.widgets.notice import Notice
from tui.widgets.status_bar import StatusBar
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

PLAN = "## Plan\n1. Write `a.txt` with a greeting.\n2. Run the tests."


def status(app: PleatApp) -> str:
    return app.query_one(StatusBar).line


def notices(app: PleatApp) -> list[str]:
    return [str(notice.entry.text) for notice in app.query(Notice)]


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


async def test_shift_tab_cycles_every_mode(server: ScriptedServer, workspace: Path) -> None:
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert "ask mode" in status(app)
        for mode in ("accept-edits", "plan", "full-auto", "ask"):
            await pilot.press("shift+tab")
            await wait_for(pilot, lambda m=mode: f"{m} mode" in status(app), f"{mode} shown")
            assert app.approvals.permissions.mode == mode
            await wait_for(
                pilot, lambda m=mode: any(n.startswith(f"{m} mode:") for n in notices(app)), "note"
            )
        assert app.focused is app.prompt  # the key changed the mode, not the focus


async def test_plan_mode_refuses_writes_and_asks_for_a_plan(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(
        ToolCalls([("read_file", {"path": "notes.md"})]),
        ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]),
        Text("I will plan first."),
    )
    (workspace / "notes.md").write_text("# notes\n")
    app = make_app(server, workspace, permission_mode="plan")
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert "plan mode" in status(app)
        await exchange(pilot, app, "write a greeting")
        assert not isinstance(app.screen, ApprovalScreen)  # refused without asking
        # The note rides with the prompt, for the model only.
        assert [str(u.entry.text) for u in app.query(UserMessage)] == ["write a greeting"]
    assert not (workspace / "a.txt").exists()
    first = server.requests[0].messages[-1]
    assert first["role"] == "user" and first["content"] == f"write a greeting\n\n{PLAN_NOTE}"
    assert "# notes" in tool_results(server, 1)[0]  # reading tools run
    refusal = tool_results(server, 2)[-1]
    assert refusal.startswith("refused: pleat is in plan mode") and "exit_plan_mode" in refusal


async def test_an_accepted_plan_switches_to_accept_edits(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(
        ToolCalls([("exit_plan_mode", {"plan": PLAN})]),
        ToolCalls([("write_file", {"path": "a.txt", "content": "hello"})]),
        Text("Done."),
    )
    app = make_app(server, workspace, permission_mode="plan")
    async with app.run_test() as pilot:
        await started(pilot, app)
        await send(pilot, app, "greet")
        await asked(pilot, app, PlanScreen, "the plan review")
        assert app.screen.query_one(Markdown).source == PLAN
        assert app.query_one(".plan", AppMarkdown).source == PLAN  # kept in the conversation
        await pilot.press("shift+tab")  # a modal's own key: the mode stays
        assert app.approvals.permissions.mode == "plan"
        await pilot.press("y")
        await wait_for(pilot, lambda: turn_finished(app), "the turn")
        assert not isinstance(app.screen, ApprovalScreen)  # the write ran without asking
        assert "accept-edits mode" in status(app)
        assert any(n.startswith("accept-edits mode:") for n in notices(app))
    assert (workspace / "a.txt").read_text() == "hello"
    assert "The user accepted the plan" in tool_results(server, 1)[-1]


async def test_keep_planning_sends_the_feedback(server: ScriptedServer, workspace: Path) -> None:
    server.push(ToolCalls([("exit_plan_mode", {"plan": PLAN})]), Text("Revised."))
    app = make_app(server, workspace, permission_mode="plan")
    async with app.run_test() as pilot:
        await started(pilot, app)
        await send(pilot, app, "greet")
        await asked(pilot, app, PlanScreen, "the plan review")
        app.screen.query_one(Input).focus()
        await pilot.press(*"say hi in French", "enter")
        await wait_for(pilot, lambda: turn_finished(app), "the turn")
        assert app.approvals.permissions.mode == "plan"
    result = tool_results(server, 1)[-1]
    assert "keep planning" in result and "say hi in French" in result


async def test_leaving_plan_mode_is_said_with_the_next_prompt(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(Text("a plan"), Text("ok"))
    app = make_app(server, workspace, permission_mode="plan")
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "plan it")
        await pilot.press("shift+tab")  # plan -> full-auto
        await exchange(pilot, app, "do it")
    last = server.requests[1].messages[-1]["content"]
    assert last.startswith("do it\n\n[pleat: plan mode is off]") and "full-auto" in last


async def test_always_shows_and_adds_the_rule(server: ScriptedServer, workspace: Path) -> None:
    server.push(
        ToolCalls([("run_command", {"command": "echo one"})]),
        Text("one"),
        ToolCalls([("run_command", {"command": "echo two"})]),
        ToolCalls([("run_command", {"command": "ls"})]),
        Text("two"),
    )
    app = make_app(server, workspace, sandbox="off")  # confined commands are not asked about
    async with app.run_test() as pilot:
        await started(pilot, app)
        await send(pilot, app, "first")
        await asked(pilot, app, ApprovalScreen, "the approval")
        line = str(app.screen.query_one("#approval-always", Label).content)
        assert "run_command(echo *)" in line
        await pilot.press("a")
        await wait_for(pilot, lambda: turn_finished(app), "the first turn")
        await send(pilot, app, "second")  # echo runs; ls is asked
        await asked(pilot, app, ApprovalScreen, "ls asked")
        assert app.screen.request.tool == "run_command"
        assert app.screen.request.arguments == {"command": "ls"}
        await pilot.press("n")
        await wait_for(pilot, lambda: turn_finished(app), "the second turn")
    assert tool_results(server, 3)[-1].startswith("two")


async def test_a_command_no_rule_can_cover_offers_no_always(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(ToolCalls([("run_command", {"command": "echo $(date) > out.txt"})]), Text("ok"))
    app = make_app(server, workspace, sandbox="off")  # confined commands are not asked about
    async with app.run_test() as pilot:
        await started(pilot, app)
        await send(pilot, app, "run")
        await asked(pilot, app, ApprovalScreen, "the approval")
        assert not app.screen.query("#always")
        assert "No rule can cover" in str(app.screen.query_one("#approval-always", Label).content)
        await pilot.press("a")  # not offered: nothing happens
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("n")
        await wait_for(pilot, lambda: turn_finished(app), "the turn")
    assert not (workspace / "out.txt").exists()
    assert app.approvals.permissions.session_allow == []


async def test_rules_from_the_configuration(server: ScriptedServer, workspace: Path) -> None:
    """An allow rule runs a command without asking, a deny rule refuses one even in full-auto;
    a rule naming no tool is said at start."""
    server.push(
        ToolCalls([("run_command", {"command": "echo allowed"})]),
        ToolCalls([("run_command", {"command": "rm -f x"})]),
        Text("ok"),
    )
    (workspace / "x").write_text("keep")
    app = make_app(
        server,
        workspace,
        allow=("run_command(echo *)", "run_comand(ls)"),
        deny=("run_command(rm *)",),
    )
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert any('"run_comand(ls)" names no tool' in n for n in notices(app))
        await exchange(pilot, app, "go")
        assert not isinstance(app.screen, ApprovalScreen)
    assert tool_results(server, 1)[-1].startswith("allowed")
    assert 'denied by the rule "run_command(rm *)"' in tool_results(server, 2)[-1]
    assert (workspace / "x").read_text() == "keep"


async def test_yes_starts_in_full_auto(server: ScriptedServer, workspace: Path) -> None:
    app = make_app(server, workspace, approve_everything=True, permission_mode="plan")
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert "full-auto mode" in status(app)


async def test_the_mode_survives_a_session_switch(server: ScriptedServer, workspace: Path) -> None:
    """The mode is the user's, across /new; "always" rules are the session's."""
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await pilot.press("shift+tab")
        app.approvals.permissions.remember(["run_command(pytest *)"])
        first = app.session.id if app.session else ""
        app.prompt.value = "/new"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session is not None and app.session.id != first, "/new")
        assert app.approvals.permissions.mode == "accept-edits"
        assert "accept-edits mode" in status(app)
        assert app.approvals.permissions.session_allow == []
