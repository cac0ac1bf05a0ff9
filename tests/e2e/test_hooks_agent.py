"""Hooks in the agent over real HTTP, with real hook processes: what each event's exit code and
output do to a turn, what the model then reads, and what the user is told."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from agent.assemble import build_agent
from agent.config import Config
from agent.events import (
    Event,
    PromptBlocked,
    PromptDelivered,
    ToolCallStarted,
    TurnDone,
)
from agent.hooks.tool_hooks import BLOCKED_HEADER, FEEDBACK_HEADER
from agent.permissions.policy import ApprovalRequest, Decision, approve_all, refuse_headless
from agent.subagents.team import SUBAGENT_NOTE
from agent.turn.agent_hooks import (
    CONTEXT_HEADER,
    MAX_STOP_CONTINUATIONS,
    STOP_HEADER,
    SUBAGENT_STOP_HEADER,
)
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.faults_harness import headless_turn, open_agent, turn
from tests.support.hook_support import hook, hooks, logged, notices, tool_results
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tools.result_facts import ResultFacts


def chunk_text(path: str) -> str:
    return Path(path).read_text()


NO_RM = """
command = event["tool_input"].get("command", "")
if command.split()[:1] == ["rm"]:
    print("rm is not allowed here; use git rm", file=sys.stderr)
    sys.exit(2)
"""


async def test_pre_tool_use_blocks_before_anyone_is_asked(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "victim.txt").write_text("keep me")
    asked: list[str] = []

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request.arguments["command"])
        return Decision(True)

    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        sandbox="off",  # commands ask (a sandboxed one would run unasked)
        **hooks(PreToolUse=[{"matcher": "Bash", "command": hook(tmp_path, "pre", NO_RM)}]),
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve, session=session)
    server.push(
        ToolCalls([("run_command", {"command": "rm victim.txt"})]),
        ToolCalls([("run_command", {"command": "touch made.txt"})]),
        Text("done"),
    )
    events = await turn(agent, "tidy up")
    assert (workspace / "victim.txt").exists() and (workspace / "made.txt").exists()
    assert asked == ["touch made.txt"]  # the blocked call never reached the approval
    (blocked,) = tool_results(server, 1)
    assert blocked == f"{BLOCKED_HEADER}rm is not allowed here; use git rm"
    (said,) = notices(events)
    assert said.event == "PreToolUse" and not said.failed
    assert "blocked run_command: rm is not allowed here; use git rm" in said.message
    first, second = logged(tmp_path, "pre")
    call = next(e for e in events if isinstance(e, ToolCallStarted)).call
    assert first["tool_name"] == "Bash" and first["tool_use_id"] == call.id  # Claude Code's
    assert first["tool_input"] == {"command": "rm victim.txt"}
    assert first["pleat_tool_name"] == "run_command"  # pleat's own, beside
    assert first["pleat_tool_input"] == {"command": "rm victim.txt"}
    assert first["permission_mode"] == "default" and first["session_id"] == session.id
    assert first["transcript_path"] == str(session.journal.path)
    assert second["tool_input"] == {"command": "touch made.txt"}
    assert_history_valid(agent.history)
    session.close()


async def test_post_tool_use_stderr_is_added_to_the_result(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    lint = 'print("lint: 3 problems in a.py", file=sys.stderr); sys.exit(2)'
    config = hooks(
        PostToolUse=[
            {"matcher": "run_command", "command": hook(tmp_path, "post", lint)},
            {"matcher": "read_file", "command": hook(tmp_path, "unmatched")},
        ]
    )
    _, agent = open_agent(server, workspace, **config)
    server.push(ToolCalls([("run_command", {"command": "echo hi"})]), Text("ok"))
    events = await turn(agent, "say hi")
    (result,) = tool_results(server, 1)
    assert result.startswith("hi\n") and result.endswith(
        f"\n{FEEDBACK_HEADER}lint: 3 problems in a.py"
    )
    (event,) = logged(tmp_path, "post")
    assert event["tool_response"]["is_error"] is False
    assert event["tool_response"]["output"].startswith("hi\n")
    assert logged(tmp_path, "unmatched") == []
    assert "told the model" in notices(events)[0].message


async def test_a_stop_hook_makes_the_turn_go_on_a_bounded_number_of_times(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    always = 'print("the tests still fail", file=sys.stderr); sys.exit(2)'
    _, agent = open_agent(
        server, workspace, **hooks(Stop=[{"command": hook(tmp_path, "stop", always)}])
    )
    server.push(*[Text(f"done {n}") for n in range(MAX_STOP_CONTINUATIONS + 1)])
    events = await turn(agent, "fix the tests")
    done = events[-1]
    assert isinstance(done, TurnDone) and done.reason == "answer"
    assert done.text == f"done {MAX_STOP_CONTINUATIONS}"
    assert len(server.requests) == MAX_STOP_CONTINUATIONS + 1  # never an endless loop
    for request in server.requests[1:]:
        assert request.messages[-1]["content"] == f"{STOP_HEADER}\nthe tests still fail"
    stops = logged(tmp_path, "stop")
    assert [e["stop_hook_active"] for e in stops] == [False] + [True] * MAX_STOP_CONTINUATIONS
    assert [e["last_assistant_message"] for e in stops] == [
        f"done {n}" for n in range(MAX_STOP_CONTINUATIONS + 1)
    ]
    said = [n.message for n in notices(events)]
    assert len(said) == MAX_STOP_CONTINUATIONS + 1
    assert all("the turn goes on: the tests still fail" in line for line in said[:-1])
    assert "it ends here" in said[-1]
    assert_history_valid(agent.history)
    server.push(Text("next"), Text("next, checked"))
    await turn(agent, "again")  # a new turn starts counting afresh
    assert logged(tmp_path, "stop")[-2]["stop_hook_active"] is False


async def test_a_stop_hook_that_exits_zero_ends_the_turn(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    _, agent = open_agent(server, workspace, **hooks(Stop=[{"command": hook(tmp_path, "stop")}]))
    server.push(Text("all done"))
    events = await turn(agent, "hello")
    assert events[-1] == TurnDone("answer", text="all done", iterations=1)
    assert len(server.requests) == 1 and len(logged(tmp_path, "stop")) == 1
    assert not notices(events)


GUARD = """
if "password" in event["prompt"]:
    print("prompts must not hold passwords", file=sys.stderr)
    sys.exit(2)
print("branch: main")
"""


async def test_user_prompt_submit_blocks_a_prompt_or_adds_context(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    config = hooks(UserPromptSubmit=[{"command": hook(tmp_path, "prompt", GUARD)}])
    _, agent = open_agent(server, workspace, **config)
    before = list(agent.history)
    events = await turn(agent, "my password is hunter2")
    assert events == [
        PromptBlocked(
            "my password is hunter2",
            f"prompt not sent: {agent.hooks.runner.specs[0].name} blocked it: "  # type: ignore[union-attr]
            "prompts must not hold passwords",
        ),
        TurnDone("error"),
    ]
    assert server.requests == [] and agent.history == before  # nothing sent, nothing kept
    server.push(Text("hi"))
    await turn(agent, "hello")
    sent = server.requests[0].messages
    assert sent[-1] == {"role": "user", "content": f"hello\n\n{CONTEXT_HEADER}\nbranch: main"}
    assert [e["prompt"] for e in logged(tmp_path, "prompt")] == ["my password is hunter2", "hello"]
    assert_history_valid(agent.history)


async def test_queued_prompts_pass_through_user_prompt_submit(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    config = hooks(UserPromptSubmit=[{"command": hook(tmp_path, "prompt", GUARD)}])
    _, agent = open_agent(server, workspace, **config)
    server.push(ToolCalls([("list_dir", {})]), Text("listed"))
    events: list[Event] = []
    async for event in agent.run_turn("look around"):
        if isinstance(event, ToolCallStarted):
            agent.queued.put("the password is hunter2")  # sent while the tool runs
        events.append(event)
    (blocked,) = [e for e in events if isinstance(e, PromptBlocked)]
    assert blocked.queued and blocked.text == "the password is hunter2"
    assert "prompts must not hold passwords" in blocked.message
    assert len(agent.queued) == 0
    assert all("hunter2" not in json.dumps(m) for m in server.requests[1].messages)
    server.push(ToolCalls([("list_dir", {})]), Text("listed again"))
    events = []
    async for event in agent.run_turn("look again"):
        if isinstance(event, ToolCallStarted):
            agent.queued.put("and the tests")
        events.append(event)
    assert any(isinstance(e, PromptDelivered) for e in events)
    assert server.requests[3].messages[-1] == {
        "role": "user",
        "content": f"and the tests\n\n{CONTEXT_HEADER}\nbranch: main",
    }
    assert_history_valid(agent.history)


async def test_session_start_runs_once_and_its_stdout_reaches_the_first_prompt(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    welcome = 'print("the project uses uv")'
    config = hooks(
        SessionStart=[{"matcher": "startup", "command": hook(tmp_path, "start", welcome)}]
    )
    _, agent = open_agent(server, workspace, **config)
    agent.hooks.session_started("startup")
    server.push(Text("one"), Text("two"))
    await turn(agent, "first")
    await turn(agent, "second")
    assert [e["source"] for e in logged(tmp_path, "start")] == ["startup"]
    assert (
        server.requests[0].messages[-1]["content"]
        == f"first\n\n{CONTEXT_HEADER}\nthe project uses uv"
    )
    assert server.requests[1].messages[-1]["content"] == "second"
    assert await agent.hooks.run_session_start() == []  # it ran already
    agent.hooks.session_started("resume")  # the matcher selects startup only
    assert await agent.hooks.run_session_start() == []
    assert len(logged(tmp_path, "start")) == 1


async def test_pre_compact_adds_to_the_focus_and_post_compact_gets_the_chunk(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    config = hooks(
        PreCompact=[{"command": hook(tmp_path, "pre", 'print("keep the test names")')}],
        PostCompact=[{"command": hook(tmp_path, "post")}],
    )
    session, agent = open_agent(server, workspace, policy={"tail_messages": 1}, **config)
    server.push(
        Text("one"), Text("two"), Text("<topics>parser</topics><summary>the summary</summary>")
    )
    await turn(agent, "first")
    await turn(agent, "second")
    events = [e async for e in agent.compact(focus="the parser")]
    assert not notices(events)
    instruction = server.requests[-1].messages[-1]["content"]
    assert "the parser\nkeep the test names" in instruction
    (pre,) = logged(tmp_path, "pre")
    assert pre["trigger"] == "manual" and pre["reason"] == "manual"
    assert pre["custom_instructions"] == "the parser"
    (post,) = logged(tmp_path, "post")
    assert post["chunk_path"] == str(session.archive.path(1))
    assert "the summary" not in chunk_text(post["chunk_path"])  # the folded messages verbatim
    assert "first" in chunk_text(post["chunk_path"])
    assert post["chunk"] == 1 and post["summary"] == "the summary"
    assert post["trigger"] == "manual" and post["hook_event_name"] == "PostCompact"


async def test_failing_hooks_are_reported_and_ignored(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    config = hooks(
        PreToolUse=[
            {"command": "echo 'linter missing' >&2; exit 1"},
            {"command": "sleep 30", "timeout": 0.3},
        ]
    )
    _, agent = open_agent(server, workspace, **config)
    server.push(ToolCalls([("run_command", {"command": "touch ran.txt"})]), Text("ok"))
    events = await turn(agent, "go")
    assert (workspace / "ran.txt").exists()  # neither failure blocks
    failed = notices(events)
    assert [n.failed for n in failed] == [True, True]
    assert failed[0].message.endswith("exited with 1: linter missing")
    assert "timed out after 0.3 s (killed)" in failed[1].message
    assert events[-1] == TurnDone("answer", text="ok", iterations=2)


async def test_what_a_hook_says_to_the_model_is_cut_to_the_budget(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    flood = (
        'print("\\n".join(f"reason line {n}" for n in range(3000)), file=sys.stderr); sys.exit(2)'
    )
    config = hooks(PreToolUse=[{"command": hook(tmp_path, "flood", flood)}])
    _, agent = open_agent(server, workspace, policy={"context_window": 8_000}, **config)
    server.push(ToolCalls([("run_command", {"command": "true"})]), Text("ok"))
    await turn(agent, "go")
    result = next(m for m in agent.history if m.role == "tool")
    assert agent.tool_context().budget.fits(result.content or "")
    assert "reason line 0" in (result.content or "") and "reason line 2999" in (
        result.content or ""
    )
    assert "were cut to fit the context" in (result.content or "")


async def test_a_prompt_waits_for_a_session_start_already_running(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    slow = 'import time; time.sleep(0.5); print("fresh context")'
    _, agent = open_agent(
        server, workspace, **hooks(SessionStart=[{"command": hook(tmp_path, "start", slow)}])
    )
    agent.hooks.session_started("startup")
    running = asyncio.create_task(agent.hooks.run_session_start())  # the TUI's background start
    await asyncio.sleep(0)  # it holds the gate now
    server.push(Text("ok"))
    await turn(agent, "first")
    assert await running == []
    assert len(logged(tmp_path, "start")) == 1
    assert server.requests[0].messages[-1]["content"] == f"first\n\n{CONTEXT_HEADER}\nfresh context"


async def test_headless_keeps_each_answer_of_a_continued_turn_on_its_own_line(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    once = "sys.exit(0 if event['stop_hook_active'] else 2)"
    _, agent = open_agent(
        server, workspace, **hooks(Stop=[{"command": hook(tmp_path, "stop", once)}])
    )
    server.push(Text("first answer"), Text("second answer"))
    code, out, err = await headless_turn(agent, "go")
    assert code == 0
    assert out == "first answer\nsecond answer\n"
    assert "the turn goes on" in err


ANSWER_IN_JSON = """
command = event["tool_input"]["command"]
decision = "deny" if command.startswith("rm") else "allow"
print(json.dumps({"hookSpecificOutput": {
    "hookEventName": "PreToolUse",
    "permissionDecision": decision,
    "permissionDecisionReason": f"{decision}: {command}",
}}))
"""


async def test_a_json_deny_blocks_and_a_json_allow_answers_the_question_a_call_would_ask(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        **hooks(PreToolUse=[{"command": hook(tmp_path, "answer", ANSWER_IN_JSON)}]),
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, refuse_headless, session=session)  # ask mode
    (workspace / "a.txt").write_text("keep me\n")
    server.push(
        ToolCalls(
            [
                ("run_command", {"command": "rm a.txt"}),
                ("run_command", {"command": "touch b.txt"}),
            ]
        ),
        Text("ok"),
    )
    await turn(agent, "go")
    denied, allowed = tool_results(server, 1)
    assert denied == f"{BLOCKED_HEADER}deny: rm a.txt"
    assert allowed.endswith("exit code: 0")  # in ask mode, headless: the hook's allow ran it
    assert (workspace / "b.txt").exists() and (workspace / "a.txt").exists()
    session.close()


async def test_a_pre_tool_use_guard_holds_inside_a_sub_agent(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """A `task` must not be a way around the user's PreToolUse guard: the sub-agent's calls go
    through the same hooks."""
    (workspace / "victim.txt").write_text("keep me")
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        **hooks(PreToolUse=[{"matcher": "Bash", "command": hook(tmp_path, "pre", NO_RM)}]),
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve_all, session=session)

    def respond(body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if SUBAGENT_NOTE in (body["messages"][0].get("content") or ""):
            if last["role"] == "user":
                return ToolCalls([("run_command", {"command": "rm victim.txt"})])
            return Text(f"sub-agent saw: {last['content']}")
        if last["role"] == "user":
            task = {"description": "tidy", "prompt": "delete victim.txt"}
            return ToolCalls([("task", task)])
        return Text("parent done")

    server.fallback = respond
    events = await turn(agent, "tidy up through a sub-agent")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "parent done"
    assert (workspace / "victim.txt").read_text() == "keep me"
    (call,) = logged(tmp_path, "pre")
    assert call["tool_input"] == {"command": "rm victim.txt"}
    answer = tool_results(server, len(server.requests) - 1)[-1]
    assert "rm is not allowed here; use git rm" in answer
    (said,) = notices(events)  # the user hears of the block too, naming the task
    assert said.event == "PreToolUse" and not said.failed
    assert said.message.startswith("(tidy) ")
    assert "blocked run_command: rm is not allowed here; use git rm" in said.message
    session.close()


FINISH_FIRST = """
if not event["stop_hook_active"]:
    print("run the tests first", file=sys.stderr)
    sys.exit(2)
"""


async def test_a_sub_agent_runs_subagent_stop_and_no_prompt_or_stop_hooks(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """As in Claude Code: a sub-agent's task prompt is not the user's (no UserPromptSubmit),
    it opens no session (no SessionStart), and its end is SubagentStop (matched on the agent's
    type), not Stop; every payload of its hooks names it."""
    config = hooks(
        SessionStart=[{"command": hook(tmp_path, "start")}],
        UserPromptSubmit=[{"command": hook(tmp_path, "prompt")}],
        PreToolUse=[{"command": hook(tmp_path, "pre")}],
        Stop=[{"command": hook(tmp_path, "stop")}],
        SubagentStop=[
            {"matcher": "general-purpose", "command": hook(tmp_path, "substop", FINISH_FIRST)},
            {"matcher": "reviewer", "command": hook(tmp_path, "reviewer")},
        ],
    )
    session, agent = open_agent(server, workspace, **config)
    agent.hooks.session_started("startup")

    def respond(body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if SUBAGENT_NOTE in (body["messages"][0].get("content") or ""):
            if last["role"] == "tool":
                return Text("sub draft")
            if str(last["content"]).startswith(SUBAGENT_STOP_HEADER):
                return Text("sub final")
            return ToolCalls([("list_dir", {})])
        if last["role"] == "user":
            return ToolCalls([("task", {"description": "survey", "prompt": "list the files"})])
        return Text("parent done")

    server.fallback = respond
    events = await turn(agent, "survey the project")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "parent done"
    task_result = next(m for m in agent.history if m.role == "tool")
    assert task_result.content == "sub final"  # the answer after the hook's nudge
    facts = ResultFacts.of_message(task_result.meta)
    assert facts is not None
    sub_id = facts.subsession
    assert [e["prompt"] for e in logged(tmp_path, "prompt")] == ["survey the project"]
    assert [e["source"] for e in logged(tmp_path, "start")] == ["startup"]
    assert [e["last_assistant_message"] for e in logged(tmp_path, "stop")] == ["parent done"]
    assert all("agent_id" not in e for e in logged(tmp_path, "stop"))
    assert logged(tmp_path, "reviewer") == []  # its matcher names another agent type
    substops = logged(tmp_path, "substop")
    assert [e["stop_hook_active"] for e in substops] == [False, True]
    assert [e["last_assistant_message"] for e in substops] == ["sub draft", "sub final"]
    for event in substops:
        assert event["hook_event_name"] == "SubagentStop"
        assert event["session_id"] == session.id  # the session's, as Claude Code gives it
        assert event["agent_id"] == sub_id and event["agent_type"] == "general-purpose"
        transcript = event["agent_transcript_path"]
        assert sub_id in transcript and await asyncio.to_thread(os.path.isfile, transcript)
        assert transcript != event["transcript_path"]
    parents_call, subs_call = logged(tmp_path, "pre")
    assert parents_call["tool_name"] == "Task" and "agent_id" not in parents_call
    assert subs_call["tool_name"] == "LS" and subs_call["agent_id"] == sub_id
    last_sent = [str(r.messages[-1]["content"]) for r in server.requests]
    nudge = f"{SUBAGENT_STOP_HEADER}\nrun the tests first"
    assert last_sent.count(nudge) == 1  # the sub-agent read the hook's stderr, once
    (said,) = [n for n in notices(events) if n.event == "SubagentStop"]
    assert said.message.startswith("(survey) ") and "run the tests first" in said.message
    assert_history_valid(agent.history)
    session.close()
