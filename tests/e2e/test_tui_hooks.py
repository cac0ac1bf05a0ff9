"""Hooks in the TUI: a blocked prompt leaves the conversation and comes back into the input, a
blocked tool shows the hook's reason, and SessionStart speaks as the session opens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.hooks.config import parse_hooks
from agent.hooks.tool_hooks import BLOCKED_HEADER
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import (
    asked,
    command,
    exchange,
    make_app,
    model,
    small_policy,
    started,
    wait_for,
)
from tui.screens.project_approval import HookApprovalScreen
from tui.widgets.notice import Notice
from tui.widgets.prompt_input import PromptInput
from tui.widgets.tool_call import ToolCallBlock
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

NO_PASSWORDS = 'grep -q password && { echo "prompts must not hold passwords" >&2; exit 2; }; exit 0'
NO_RM = "grep -q '\"command\": \"rm ' && { echo 'rm is not allowed here' >&2; exit 2; }; exit 0"


def notices(app: object) -> list[str]:
    return [str(n.entry.text) for n in app.query(Notice)]  # type: ignore[attr-defined]


async def test_a_blocked_prompt_goes_back_into_the_input(
    server: ScriptedServer, workspace: Path
) -> None:
    hooks = parse_hooks(
        {
            "UserPromptSubmit": [{"command": NO_PASSWORDS}],
            "SessionStart": [{"command": "echo 'pull first: main moved' >&2; exit 2"}],
        }
    )
    server.push(Text("hello to you"))
    app = make_app(server, workspace, hooks=hooks)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await wait_for(
            pilot, lambda: any("pull first: main moved" in n for n in notices(app)), "SessionStart"
        )
        await exchange(pilot, app, "my password is hunter2")
        assert server.requests == []
        assert app.query_one(PromptInput).text == "my password is hunter2"  # to edit, unsent
        assert not [u for u in app.query(UserMessage) if "hunter2" in u.text]
        assert any(
            "prompt not sent" in n and "prompts must not hold passwords" in n for n in notices(app)
        )
        assert app.agent is not None and [m.role for m in app.agent.history] == ["system"]
        await exchange(pilot, app, "hello")
        assert [u.text for u in app.query(UserMessage)] == ["hello"]
        assert server.requests[0].messages[-1]["content"] == "hello"


async def test_a_blocked_tool_shows_the_hooks_reason(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "precious.txt").write_text("keep")
    hooks = parse_hooks({"PreToolUse": [{"matcher": "run_command", "command": NO_RM}]})
    server.push(
        ToolCalls([("run_command", {"command": "rm precious.txt"})]), Text("could not remove it")
    )
    app = make_app(server, workspace, hooks=hooks, approve_everything=True)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await exchange(pilot, app, "remove precious.txt")
        (block,) = app.query(ToolCallBlock)
        assert block.is_error and block.entry.result == BLOCKED_HEADER + "rm is not allowed here"
        assert any("blocked run_command: rm is not allowed here" in n for n in notices(app))
        assert (workspace / "precious.txt").exists()


async def test_session_start_runs_with_each_sessions_source(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    log = workspace / "sources.txt"  # hooks run in the sandbox: they write in the workspace
    record = f'grep -o \'"source": "[a-z]*"\' >> {log}'
    server.fallback = model([Text("one " * 50), Text("two")])
    hooks = parse_hooks({"SessionStart": [{"command": record}]})
    app = make_app(server, workspace, hooks=hooks, compaction=small_policy())

    def sources() -> list[str]:
        text = log.read_text() if log.exists() else ""
        return [line.split('"')[-2] for line in text.splitlines()]

    async with app.run_test() as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: sources() == ["startup"], "SessionStart at start-up")
        await exchange(pilot, app, "first")
        await exchange(pilot, app, "second")
        assert app.session is not None
        first = app.session.id
        await command(pilot, app, "/new")
        await wait_for(pilot, lambda: sources()[-1:] == ["clear"], "SessionStart after /new")
        await command(pilot, app, f"/resume {first}")
        await wait_for(pilot, lambda: sources()[-1:] == ["resume"], "after /resume")
        await command(pilot, app, "/fork")
        await wait_for(pilot, lambda: sources()[-1:] == ["fork"], "after /fork")
        assert app.session is not None and app.session.header["parent"] == first
    assert sources() == ["startup", "clear", "resume", "fork"]  # once per session opened


# A Read guard written for Claude Code: it reads Claude Code's names only.
ENV_GUARD = (
    "python3 -c 'import json,sys; d=json.load(sys.stdin); "
    'p=d["tool_input"].get("file_path",""); '
    'sys.exit(0) if d["tool_name"]!="Read" or not p.endswith(".env") else '
    '(print("no secrets, please", file=sys.stderr), sys.exit(2))\''
)


async def test_a_projects_claude_code_hooks_run_once_approved_and_are_asked_about_until_then(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    log = workspace / "started.txt"
    block = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Read", "hooks": [{"type": "command", "command": ENV_GUARD}]}
            ],
            "SessionStart": [{"hooks": [{"type": "command", "command": f"echo ran >> {log}"}]}],
        },
        "env": {"DEPLOY": "staging"},  # shown and approved with the hooks
        "permissions": {"deny": ["Bash(rm:*)"]},  # tightening: holds without a question
    }
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps(block))
    (workspace / ".env").write_text("TOKEN=sk-secret-42\n")

    async def read_env(answer: str | None) -> tuple[str, list[str]]:
        server.push(ToolCalls([("read_file", {"path": ".env"})]), Text("read"))
        app = make_app(server, workspace)
        async with app.run_test() as pilot:
            await started(pilot, app)
            if answer is not None:
                await asked(pilot, app, HookApprovalScreen, "the hooks question")
                shown = [str(s.render()) for s in app.screen.query(".project-approval-item")]
                assert shown == [
                    "PreToolUse (Read): " + ENV_GUARD,
                    f"SessionStart: echo ran >> {log}",
                    'setting env.DEPLOY: "staging"',
                ]
                await pilot.press(answer)
            else:  # approved before: in the run's hooks from the start, nothing to ask
                assert app.controller is not None and app.controller.hooks_waiting == ()
                assert len(app.controller.hooks.specs) == 2
            await wait_for(pilot, lambda: not isinstance(app.screen, HookApprovalScreen), "closed")
            await exchange(pilot, app, "show me .env")
            (block_widget,) = app.query(ToolCallBlock)
            return str(block_widget.entry.result), notices(app)

    result, said = await read_env("n")
    assert "sk-secret-42" in result  # not approved: the guard did not run
    assert any(".claude/settings.json's hooks do not run" in n for n in said)
    assert not log.exists()
    result, said = await read_env("y")
    assert result == BLOCKED_HEADER + "no secrets, please"
    assert log.read_text() == "ran\n"  # its SessionStart ran once approved
    result, said = await read_env(None)  # remembered: no question
    assert result == BLOCKED_HEADER + "no secrets, please"
