"""Claude Code's JSON answer of a hook, mapped onto pleat's call: a permission decision, a changed
input, added context, a stop, a message for the user; over real HTTP, with real hook processes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent.assemble import build_agent, permissions_from
from agent.config import Config
from agent.events import ErrorEvent, TurnDone
from agent.hooks.config import HookSpec, Matcher
from agent.hooks.runner import HookSet
from agent.permissions.policy import ApprovalRequest, Decision, refuse_headless
from agent.turn.loop import Agent
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.faults_harness import turn
from tests.support.hook_support import hook, hooks, logged, notices, tool_results
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls


def answer(payload: str) -> str:
    """A hook body that prints `payload` (a Python expression over `event`) as its JSON answer."""
    return f"print(json.dumps({payload}))\n"


class Asked:
    """An approval callback that says yes and remembers what it was asked."""

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.commands.append(str(request.arguments.get("command", request.tool)))
        self.requests.append(request)
        return Decision(True)


def agent_for(
    server: ScriptedServer,
    workspace: Path,
    approve: Asked,
    mode: str = "ask",
    hook_set: HookSet | None = None,
    **config: Any,
) -> tuple[Session, Agent]:
    settings = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, **config)
    session = Session.create(workspace, model=TEST_MODEL)
    permissions = permissions_from(settings, full_auto=mode == "full-auto")
    agent = build_agent(
        settings, workspace, approve, session=session, permissions=permissions, hooks=hook_set
    )
    return session, agent


# Rewrites every Bash command to a harmless echo of it, and lets it run without asking.
REWRITE = answer(
    '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", '
    '"updatedInput": {**event["tool_input"], "description": "a field pleat has not", '
    '"command": "echo checked: " + event["tool_input"]["command"]}}}'
)


async def test_updated_input_runs_in_place_of_the_models_and_allow_asks_nobody(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    asked = Asked()
    session, agent = agent_for(
        server,
        workspace,
        asked,
        **hooks(PreToolUse=[{"matcher": "Bash", "command": hook(tmp_path, "pre", REWRITE)}]),
    )
    server.push(
        ToolCalls([("run_command", {"command": "rm data.txt", "timeout": 30})]),
        Text("done"),
    )
    (workspace / "data.txt").write_text("keep")
    events = await turn(agent, "clean up")
    (result,) = tool_results(server, 1)
    assert result.startswith("checked: rm data.txt")  # the hook's command ran, not the model's
    assert (workspace / "data.txt").exists() and asked.commands == []  # "allow": nobody asked
    (event,) = logged(tmp_path, "pre")
    assert event["tool_input"] == {"command": "rm data.txt", "timeout": 30_000}  # Claude's ms
    assert any("changed the input of run_command" in n.message for n in notices(events))
    assert_history_valid(agent.history)
    session.close()


async def test_an_input_a_hook_breaks_is_the_calls_error_and_nothing_runs(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    broken = answer(
        '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": 5}}}'
    )
    session, agent = agent_for(
        server,
        workspace,
        Asked(),
        mode="full-auto",
        **hooks(PreToolUse=[{"command": hook(tmp_path, "pre", broken)}]),
    )
    server.push(ToolCalls([("run_command", {"command": "touch made.txt"})]), Text("ok"))
    await turn(agent, "go")
    (result,) = tool_results(server, 1)
    assert result.startswith("a PreToolUse hook changed the input of run_command to one not valid")
    assert not (workspace / "made.txt").exists()
    session.close()


ASK = answer(
    '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", '
    '"permissionDecisionReason": "confirm pushes"}}'
)
ALLOW = answer(
    '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'
)


async def test_ask_asks_in_full_auto_and_allow_never_beats_a_deny_rule(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    asked = Asked()
    session, agent = agent_for(
        server,
        workspace,
        asked,
        mode="full-auto",
        deny=("run_command(rm *)",),
        **hooks(
            PreToolUse=[
                {"matcher": "Bash", "command": hook(tmp_path, "ask", ASK)},
                {"matcher": "Bash", "command": hook(tmp_path, "allow", ALLOW)},
            ]
        ),
    )
    server.push(
        ToolCalls(
            [
                ("run_command", {"command": "git status"}),
                ("run_command", {"command": "rm notes.txt"}),
            ]
        ),
        Text("ok"),
    )
    (workspace / "notes.txt").write_text("keep")
    await turn(agent, "go")
    assert asked.commands == ["git status"]  # "ask" beats "allow", and asks in full-auto
    assert asked.requests[0].hook_asked and asked.requests[0].hook_reason == "confirm pushes"
    ran, denied = tool_results(server, 1)
    assert "exit code" in ran
    assert denied.startswith('refused: run_command is denied by the rule "run_command(rm *)"')
    assert (workspace / "notes.txt").exists()
    session.close()


STOP = answer('{"continue": False, "stopReason": "the build is frozen"}')


async def test_continue_false_ends_the_turn_after_its_call(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    session, agent = agent_for(
        server,
        workspace,
        Asked(),
        mode="full-auto",
        **hooks(PreToolUse=[{"matcher": "Write", "command": hook(tmp_path, "stop", STOP)}]),
    )
    server.push(
        ToolCalls(
            [
                ("write_file", {"path": "a.txt", "content": "a"}),
                ("run_command", {"command": "touch b.txt"}),
            ]
        ),
        Text("never asked for"),
    )
    events = await turn(agent, "go")
    assert len(server.requests) == 1  # no model call after the stop
    assert not (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.kind == "hook" and "the build is frozen" in error.message
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "error"
    results = [m.content for m in agent.history if m.role == "tool"]
    assert results == ["[not run: a hook stopped the turn: the build is frozen]"] * 2
    assert_history_valid(agent.history)
    session.close()


LINT = answer(
    '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": '
    '"lint: 2 warnings in " + event["tool_input"]["file_path"]}, "systemMessage": "linted", '
    '"suppressOutput": True}'
)


async def test_post_tool_use_context_reaches_the_model_and_its_message_the_user(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    session, agent = agent_for(
        server,
        workspace,
        Asked(),
        mode="full-auto",
        **hooks(PostToolUse=[{"matcher": "Edit|Write", "command": hook(tmp_path, "lint", LINT)}]),
    )
    server.push(ToolCalls([("write_file", {"path": "a.py", "content": "x = 1\n"})]), Text("ok"))
    events = await turn(agent, "write it")
    (result,) = tool_results(server, 1)
    path = await asyncio.to_thread(lambda: workspace.resolve() / "a.py")
    assert result.endswith(f"[a PostToolUse hook adds] lint: 2 warnings in {path}")
    assert [n.message for n in notices(events)][-1].endswith(": linted")
    (event,) = logged(tmp_path, "lint")
    assert event["tool_name"] == "Write" and event["pleat_tool_name"] == "write_file"
    response = event["tool_response"]
    assert response["type"] == "create" and response["filePath"] == str(path)
    assert response["content"] == "x = 1\n" and response["is_error"] is False
    session.close()


ALLOW_ALL = answer('{"hookSpecificOutput": {"permissionDecision": "allow"}}')
NO_RM = 'print("no rm here", file=sys.stderr); sys.exit(2)\n'


async def test_a_hooks_if_runs_it_for_any_part_and_its_allow_counts_only_for_the_whole_call(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """Claude Code's `if`: a guard for `rm` runs when any part of a line is an rm; an allow
    meant for `npm test` does not approve a line that also runs something else."""
    allow_tests = hook(tmp_path, "allow", ALLOW_ALL)
    guard = hook(tmp_path, "guard", NO_RM)
    asked = Asked()
    session, agent = agent_for(
        server,
        workspace,
        asked,
        sandbox="off",  # commands ask (a sandboxed one would run unasked)
        hook_set=HookSet(
            [
                HookSpec(
                    "PreToolUse", allow_tests, Matcher("Bash"), condition="run_command(true *)"
                ),
                HookSpec("PreToolUse", guard, Matcher("Bash"), condition="run_command(rm *)"),
            ]
        ),
    )
    server.push(
        ToolCalls(
            [
                ("run_command", {"command": "true ok"}),
                ("run_command", {"command": "true ok && touch other.txt"}),
                ("run_command", {"command": "echo hi; rm -f x.txt"}),
                ("run_command", {"command": "ls"}),
            ]
        ),
        Text("ok"),
    )
    await turn(agent, "go")
    assert [len(logged(tmp_path, name)) for name in ("allow", "guard")] == [2, 1]
    assert asked.commands == ["true ok && touch other.txt", "ls"]  # the allow did not count
    results = tool_results(server, 1)
    assert results[2].endswith("no rm here")
    session.close()


async def test_a_stop_an_interrupted_turn_left_does_not_stop_the_next(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    session, agent = agent_for(server, workspace, Asked(), mode="full-auto")
    agent.hooks.stop_requested = "left over"  # as a cancelled round leaves it
    server.push(ToolCalls([("run_command", {"command": "touch fresh.txt"})]), Text("ok"))
    events = await turn(agent, "go")
    assert (workspace / "fresh.txt").exists()
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer"
    session.close()


async def test_session_end_hooks_get_a_short_time_unless_they_ask_for_more(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    quick = hook(tmp_path, "quick", "import time; time.sleep(30)\n")
    patient = hook(tmp_path, "patient", "pass\n")
    session, agent = agent_for(
        server,
        workspace,
        Asked(),
        hook_set=HookSet(
            [
                HookSpec("SessionEnd", quick, sandboxed=False),
                HookSpec("SessionEnd", patient, timeout=90.0, timeout_given=True, sandboxed=False),
            ]
        ),
    )
    said = await agent.hooks.session_end("other")
    (failure,) = [n.message for n in said]
    assert "timed out after 1.5 s" in failure  # not 60: quitting waits for it
    assert [e["reason"] for e in logged(tmp_path, "patient")] == ["other"]
    session.close()


async def test_a_hooks_ask_headless_says_a_person_must_approve_and_why(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    settings = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        **hooks(PreToolUse=[{"command": hook(tmp_path, "ask", ASK)}]),
    )
    session = Session.create(workspace, model=TEST_MODEL)
    permissions = permissions_from(settings, full_auto=True)  # --yes: the mode would run it
    agent = build_agent(
        settings, workspace, refuse_headless, session=session, permissions=permissions
    )
    server.push(ToolCalls([("run_command", {"command": "git push"})]), Text("ok"))
    await turn(agent, "go")
    (result,) = tool_results(server, 1)
    assert result == (
        "refused: the user did not approve run_command: a PreToolUse hook asks for a person to "
        "approve run_command (confirm pushes), and nobody can be asked in a headless run; do "
        "not retry it: tell the user what you wanted to do"
    )
    session.close()
