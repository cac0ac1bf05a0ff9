"""The agent loop end to end over real HTTP: tool iterations, approvals, malformed model output,
errors, the iteration cap, and interruptions that must leave a valid history."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from agent.events import (
    ErrorEvent,
    Event,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
)
from agent.model.llm import LLM
from agent.model.settings import ModelSettings
from agent.permissions.policy import ApprovalRequest, Decision, approve_all, refuse_headless
from agent.turn.loop import Agent
from agent.turn.notes import CANCELLED_TOOL_RESULT
from agent.turn.system_prompt import system_prompt
from sessions.messages import Message, unanswered_calls
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import Error, ScriptedServer, Stall, Text, ToolCalls
from tools.base import Tool, ToolContext, ToolOutput
from tools.registry import default_registry


def make_agent(
    server: ScriptedServer, workspace: Path, approve: Any = approve_all, **kw: Any
) -> Agent:
    registry = default_registry()
    llm = LLM(
        ModelSettings(
            model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, retry_base_delay=0.001
        )
    )
    return Agent(
        llm,
        registry,
        workspace,
        approve,
        system_prompt(workspace, registry.names()),
        max_tool_iterations=kw.get("max_tool_iterations", 20),
    )


async def run(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run_turn(prompt)]


def assert_valid_history(history: list[Message]) -> None:
    """System first; every tool result answers an earlier call; every call has its result;
    no two user messages in a row."""
    assert history[0].role == "system"
    open_calls: set[str] = set()
    for before, message in itertools.pairwise(history):
        assert not (before.role == "user" and message.role == "user")
        if message.role == "assistant":
            assert not open_calls, f"calls left unanswered before {message.id}"
            open_calls = {c.id for c in message.tool_calls}
        elif message.role == "tool":
            assert message.tool_call_id in open_calls
            open_calls.discard(message.tool_call_id)
        elif message.role == "user":
            assert not open_calls
    assert not unanswered_calls(history)
    ids = [m.id for m in history]
    assert len(set(ids)) == len(ids)


async def test_reads_files_through_tools_then_answers(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("the secret word is pumpkin\n")
    server.push(
        ToolCalls([("list_dir", {"path": "."})], text="Let me look around."),
        ToolCalls([("read_file", {"path": "notes.txt"})]),
        Text("The secret word is pumpkin."),
    )
    agent = make_agent(server, workspace)
    events = await run(agent, "what is the secret word?")
    done = events[-1]
    assert isinstance(done, TurnDone) and done.reason == "answer" and done.iterations == 3
    assert done.text == "The secret word is pumpkin."
    results = [e for e in events if isinstance(e, ToolCallFinished)]
    assert "notes.txt" in results[0].text
    assert "pumpkin" in results[1].text and not results[1].is_error
    # The model saw the file's content in its third request.
    third = server.requests[2].messages
    assert third[-1]["role"] == "tool" and "pumpkin" in third[-1]["content"]
    assert third[0]["role"] == "system" and str(workspace) in third[0]["content"]
    assert [m.role for m in agent.history] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert_valid_history(agent.history)


async def test_write_needs_approval(server: ScriptedServer, workspace: Path) -> None:
    server.push(ToolCalls([("write_file", {"path": "out.txt", "content": "hi"})]), Text("tried"))
    agent = make_agent(server, workspace, approve=refuse_headless)
    events = await run(agent, "write it")
    result = next(e for e in events if isinstance(e, ToolCallFinished))
    assert result.is_error and "refused" in result.text and "--yes" in result.text
    assert not (workspace / "out.txt").exists()
    assert_valid_history(agent.history)


async def test_approval_callback_sees_a_diff(server: ScriptedServer, workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    seen: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Decision:
        seen.append(request)
        return Decision(True)

    edit = {"path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}
    server.push(ToolCalls([("edit_file", edit)]), Text("edited"))
    await run(make_agent(server, workspace, approve=approve), "edit")
    assert seen[0].tool == "edit_file"
    assert "-x = 1" in seen[0].preview and "+x = 2" in seen[0].preview
    assert (workspace / "a.py").read_text() == "x = 2\n"


async def test_read_only_tools_never_ask(server: ScriptedServer, workspace: Path) -> None:
    async def never(request: ApprovalRequest) -> Decision:
        raise AssertionError(f"asked for {request.tool}")

    (workspace / "f.txt").write_text("data\n")
    server.push(
        ToolCalls([("read_file", {"path": "f.txt"}), ("grep", {"pattern": "data"})]), Text("ok")
    )
    events = await run(make_agent(server, workspace, approve=never), "read")
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer"


async def test_malformed_tool_calls_become_results(server: ScriptedServer, workspace: Path) -> None:
    server.push(
        ToolCalls(
            [
                ("read_file", '{"path": "unterminated'),
                ("no_such_tool", {"x": 1}),
                ("read_file", {"path": 42}),
                ("write_file", {"content": "missing path"}),
            ]
        ),
        Text("I will stop guessing."),
    )
    agent = make_agent(server, workspace)
    events = await run(agent, "go")
    results = [e for e in events if isinstance(e, ToolCallFinished)]
    assert len(results) == 4 and all(r.is_error for r in results)
    assert "JSON" in results[0].text
    assert "no_such_tool" in results[1].text
    assert "path" in results[2].text and "path" in results[3].text
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer"
    assert_valid_history(agent.history)


class OddSchemaTool(Tool):
    """A tool whose schema says odd things (as a crafted MCP server's may): checking a call
    against it may raise something else than a ToolError."""

    name = "odd"
    description = "a tool with a crafted schema"
    read_only = True
    parameters: dict[str, Any] = {  # noqa: RUF012 - a test double
        "type": "object",
        "properties": {
            "text": {"type": "string", "maxLength": "10"},
            "pick": {"enum": 5},
            "count": {"type": "integer", "minimum": "3"},
        },
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput("ran")


async def test_a_schema_that_breaks_validation_is_the_calls_error_not_the_turns(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(
        ToolCalls([("odd", {"text": "hello"}), ("odd", {"pick": 1}), ("odd", {"count": 4})]),
        Text("understood"),
    )
    agent = make_agent(server, workspace)
    agent.registry.register(OddSchemaTool())
    events = await run(agent, "go")
    results = [e for e in events if isinstance(e, ToolCallFinished)]
    assert len(results) == 3 and all(r.is_error for r in results)
    assert all("odd" in r.text and "\n" not in r.text.strip() for r in results)
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer"
    assert_valid_history(agent.history)


async def test_iteration_cap_stops_a_looping_model(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = lambda body: ToolCalls([("list_dir", {"path": "."})])
    agent = make_agent(server, workspace, max_tool_iterations=3)
    events = await run(agent, "loop forever")
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "iteration_cap"
    assert any(isinstance(e, ErrorEvent) and e.kind == "iteration_cap" for e in events)
    assert len(server.requests) == 3
    assert_valid_history(agent.history)


async def test_provider_failure_ends_turn_with_valid_history(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(*[Error(500, "down", type="server_error")] * 5)
    agent = make_agent(server, workspace)
    events = await run(agent, "hello")
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "error"
    assert any(isinstance(e, ErrorEvent) and e.kind == "transient" for e in events)
    assert agent.history[-1].role == "assistant"
    # The next request works and never sends two user messages in a row.
    server.push(Text("back"))
    events = await run(agent, "again")
    assert events[-1].text == "back"
    assert_valid_history(agent.history)


async def test_empty_reply_is_reported(server: ScriptedServer, workspace: Path) -> None:
    server.push(Text(""))
    agent = make_agent(server, workspace)
    events = await run(agent, "hello")
    assert any(isinstance(e, ErrorEvent) and e.kind == "bad_reply" for e in events)
    assert_valid_history(agent.history)


async def test_cancel_during_a_tool_answers_every_call(
    server: ScriptedServer, workspace: Path
) -> None:
    calls = [("run_command", {"command": "sleep 30"}), ("read_file", {"path": "x"})]
    server.push(ToolCalls(calls))
    agent = make_agent(server, workspace)
    started = asyncio.Event()

    async def consume() -> None:
        async for event in agent.run_turn("run it"):
            if isinstance(event, ToolCallStarted):
                started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 30)
    await asyncio.sleep(0.2)  # let the command start
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    results = [m for m in agent.history if m.role == "tool"]
    assert [m.content for m in results] == [CANCELLED_TOOL_RESULT, CANCELLED_TOOL_RESULT]
    assert_valid_history(agent.history)


async def test_cancel_during_streaming_keeps_alternation(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(Stall(5))
    agent = make_agent(server, workspace)
    task = asyncio.create_task(run(agent, "slow"))
    await asyncio.to_thread(server.wait_for_requests, 1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert agent.history[-1].role == "assistant" and "interrupted" in agent.history[-1].content
    assert_valid_history(agent.history)


async def test_project_instructions_reach_the_model(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "CLAUDE.md").write_text("Claude file.\n")
    (workspace / "AGENTS.md").write_text("Always answer in haiku.\n")
    server.push(Text("ok"))
    await run(make_agent(server, workspace), "hi")
    system = server.requests[0].messages[0]["content"]
    assert "Always answer in haiku." in system and "Claude file." not in system
    assert "read_file" in system and "run_command" in system


def test_claude_md_is_used_without_agents_md(workspace: Path) -> None:
    (workspace / "CLAUDE.md").write_text("Use tabs.\n")
    assert "Use tabs." in system_prompt(workspace, ["read_file"])


async def test_text_before_tools_streams(server: ScriptedServer, workspace: Path) -> None:
    server.push(ToolCalls([("list_dir", {})], text="Checking the tree first."), Text("done"))
    events = await run(make_agent(server, workspace), "go")
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed == "Checking the tree first.done"
    sent = server.requests[1].messages[2]
    assert sent["content"] == "Checking the tree first."
    assert json.loads(sent["tool_calls"][0]["function"]["arguments"]) == {}


async def test_reasoning_is_kept_and_sent_back_within_its_tool_turn(
    server: ScriptedServer, workspace: Path
) -> None:
    """A provider's plain reasoning (reasoning_content) stays on its reply; it goes back with a
    reply that called tools (the turn continues from it), not with a finished answer."""
    (workspace / "a.txt").write_text("alpha\n")
    server.push(
        ToolCalls([("read_file", {"path": "a.txt"})], reasoning="I should read a.txt."),
        Text("alpha", reasoning="It says alpha."),
        Text("bye"),
    )
    agent = make_agent(server, workspace)
    events = [e async for e in agent.run_turn("read a.txt")]
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == (
        "I should read a.txt.It says alpha."
    )
    replies = [m for m in agent.history if m.role == "assistant"]
    assert [m.reasoning_content for m in replies] == ["I should read a.txt.", "It says alpha."]
    second = server.requests[1].messages
    assert second[2]["reasoning_content"] == "I should read a.txt."
    [e async for e in agent.run_turn("bye")]
    third = server.requests[2].messages
    assert "reasoning_content" not in third[4]  # a finished answer's reasoning stays home
    assert third[2]["reasoning_content"] == "I should read a.txt."
