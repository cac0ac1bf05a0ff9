"""Sub-agents end to end over real HTTP: the `task` tool, side by side, fresh contexts, answers only.

The scripted server receives the parent's requests and the sub-agents' alike; a sub-agent's
system prompt carries SUBAGENT_NOTE, and its first user message is its task's prompt, which is
how the scripted model tells them apart.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import TEST_API_KEY, TEST_MODEL
from invariants import assert_history_valid
from scripted_server import Reply, ScriptedServer, Text, ToolCalls

from agent.assemble import build_agent
from agent.config import Config
from agent.events import Event, SubagentActivity, ToolCallFinished, ToolCallStarted, TurnDone
from agent.loop import Agent
from agent.permissions import Permissions, approve_all
from agent.subagents import SUBAGENT_NOTE
from sessions.journal import replay_journal
from sessions.messages import unanswered_calls
from sessions.paths import session_dir
from sessions.store import Session, latest_session, list_sessions
from tools.result_facts import ResultFacts

# Seconds the scripted sub-agents wait for each other at their first request: far past the
# moment the second one starts when they run side by side; run one after the other, the first
# waits in vain and the test fails instead of hanging.
MEET_TIMEOUT_SECONDS = 20


def make_config(server: ScriptedServer, **overrides: Any) -> Config:
    return Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=0,
        local_model_servers=(),
        **overrides,
    )


def is_subagent(body: dict[str, Any]) -> bool:
    return SUBAGENT_NOTE in (body["messages"][0].get("content") or "")


def task_prompt(body: dict[str, Any]) -> str:
    """A sub-agent request's first user message: its task."""
    return str(body["messages"][1]["content"])


def tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def task(description: str, prompt: str, **extra: str) -> tuple[str, dict[str, Any]]:
    return ("task", {"description": description, "prompt": prompt, **extra})


async def run(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run_turn(prompt)]


class TwoSubagents:
    """The scripted model of the main scenario: the parent hands out two tasks in one reply;
    each sub-agent's first request waits until the other's has arrived too, reads a file, then
    answers; the parent answers once it has both answers."""

    def __init__(self) -> None:
        self.met = threading.Barrier(2, timeout=MEET_TIMEOUT_SECONDS)
        self.broken = False

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        if not is_subagent(body):
            if messages[-1]["role"] == "user":
                return ToolCalls(
                    [
                        task("find alpha", "subtask A: read a.txt and report its word"),
                        task("find beta", "subtask B: read b.txt and report its word"),
                    ]
                )
            return Text("both done")
        which = "A" if "subtask A" in task_prompt(body) else "B"
        if len(messages) == 2:
            try:
                self.met.wait()
            except threading.BrokenBarrierError:
                self.broken = True
            return ToolCalls([("read_file", {"path": f"{which.lower()}.txt"})])
        return Text(f"answer {which}: the word is {'apple' if which == 'A' else 'banana'}")


@pytest.fixture
def session(workspace: Path) -> Any:
    opened = Session.create(workspace, model=TEST_MODEL)
    yield opened
    opened.close()


def make_agent(
    server: ScriptedServer, workspace: Path, session: Session, respond: Callable[..., Reply]
) -> Agent:
    server.fallback = respond
    return build_agent(
        make_config(server),
        workspace,
        approve_all,
        session=session,
        permissions=Permissions("full-auto"),
    )


async def test_two_tasks_run_side_by_side_fresh_and_only_their_answers_come_back(
    server: ScriptedServer, workspace: Path, session: Session
) -> None:
    (workspace / "a.txt").write_text("SECRET-ALPHA apple\n")
    (workspace / "b.txt").write_text("SECRET-BETA banana\n")
    model = TwoSubagents()
    agent = make_agent(server, workspace, session, model)
    events = await run(agent, "do both subtasks")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "both done"
    assert not model.broken, "the two sub-agents did not run side by side"

    subagent_requests = [r.body for r in server.requests if is_subagent(r.body)]
    parent_requests = [r.body for r in server.requests if not is_subagent(r.body)]
    assert len(subagent_requests) == 4 and len(parent_requests) == 2
    firsts = [b for b in subagent_requests if len(b["messages"]) == 2]
    assert sorted(task_prompt(b)[:9] for b in firsts) == ["subtask A", "subtask B"]
    for body in firsts:  # a fresh context: its system prompt and its task, nothing else
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert "do both subtasks" not in json.dumps(body["messages"])
        assert "task" not in tool_names(body) and "exit_plan_mode" not in tool_names(body)
        assert "read_file" in tool_names(body)
    assert "task" in tool_names(parent_requests[0])

    last = parent_requests[1]["messages"]
    calls = last[-3]["tool_calls"]
    assert [m["role"] for m in last[-3:]] == ["assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in last[-2:]] == [c["id"] for c in calls]  # call order
    assert last[-2]["content"] == "answer A: the word is apple"
    assert last[-1]["content"] == "answer B: the word is banana"
    sent = json.dumps(last)
    assert "SECRET-ALPHA" not in sent and "SECRET-BETA" not in sent  # their reads stayed theirs

    started = [e for e in events if isinstance(e, ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.call.id for e in started] == [c["id"] for c in calls]
    assert sorted(e.call.id for e in finished) == sorted(c["id"] for c in calls)
    activity = [e for e in events if isinstance(e, SubagentActivity)]
    assert {e.summary for e in activity if e.summary} >= {
        "read_file(path='a.txt')",
        "read_file(path='b.txt')",
    }
    assert_history_valid(agent.history)
    assert not unanswered_calls(agent.history)

    # Journaled: each sub-agent in a session of its own that names the parent; the parent's
    # results name those sessions; the sub-agents' calls are billed to the parent.
    children = [s for s in list_sessions(workspace) if s.kind == "subagent"]
    assert len(children) == 2 and {s.parent for s in children} == {session.id}
    results = [m for m in agent.history if m.role == "tool"]
    named = {ResultFacts.of_message(m.meta).subsession for m in results}  # type: ignore[union-attr]
    assert named == {s.id for s in children}
    assert {e.meta["subsession"] for e in finished} == named
    for child in children:
        replayed = replay_journal(session_dir(child.id) / "journal.jsonl")
        roles = [m.role for m in replayed.history]
        assert roles == ["system", "user", "assistant", "tool", "assistant"]
        assert replayed.header["parent"] == session.id
    assert agent.usage.calls == 6
    assert latest_session(workspace) == session.id  # --continue never picks a sub-agent's
