"""Sub-agents end to end over real HTTP: the task tool, side by side, fresh contexts, answers only.

The scripted server receives the parent's requests and the sub-agents' alike; a sub-agent's
system prompt carries SUBAGENT_NOTE, and its first user message is its task's prompt, which is
how the scripted model tells them apart.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from collections.abc import Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.events import (
    Event,
    SubagentActivity,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
)
from agent.permissions.policy import ApprovalRequest, Decision, Permissions, approve_all
from agent.subagents.team import definition_notes
from agent.turn.loop import Agent
from agent.turn.notes import CANCELLED_TOOL_RESULT
from sessions.journal import replay_journal
from sessions.messages import unanswered_calls
from sessions.paths import session_dir
from sessions.store import Session, latest_session, list_sessions
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import Reply, ScriptedServer, Text, ToolCalls
from tests.support.subagent_support import MEET_TIMEOUT_SECONDS, Meeting, is_subagent
from tests.support.tui_support import is_compression, small_policy, summary_reply
from tools.result_facts import ResultFacts


def make_config(server: ScriptedServer, **overrides: Any) -> Config:
    return Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=0,
        local_model_servers=(),
        **overrides,
    )


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
        self.meeting = Meeting()

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
            self.meeting.wait()
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
    assert not model.meeting.missed, "the two sub-agents did not run side by side"

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


REVIEWER = """---
name: reviewer
description: Reviews code for bugs; give it the files to read
tools: Read, Grep, task
model: inherit
---
You are the reviewer. Read what you are pointed at and list the bugs you find.
"""


def one_task(prompt: str, answer: str, **extra: str) -> Callable[[dict[str, Any]], Reply]:
    """The parent hands out one task (with `extra` arguments); the sub-agent answers at once."""

    def respond(body: dict[str, Any]) -> Reply:
        if is_subagent(body):
            return Text(answer)
        if body["messages"][-1]["role"] == "user":
            return ToolCalls([task("one task", prompt, **extra)])
        return Text("parent done")

    return respond


async def test_an_agent_definition_gives_its_prompt_and_only_its_tools(
    server: ScriptedServer, workspace: Path, session: Session, pleat_home: Path
) -> None:
    (workspace / ".pleat" / "agents").mkdir(parents=True)
    (workspace / ".pleat" / "agents" / "reviewer.md").write_text(REVIEWER)
    (workspace / ".claude" / "agents").mkdir(parents=True)
    (workspace / ".claude" / "agents" / "helper.md").write_text(
        "---\ndescription: Helps with anything\n---\nYou help.\n"
    )
    (workspace / ".claude" / "agents" / "broken.md").write_text("---\nname: broken\n")
    agent = make_agent(
        server, workspace, session, one_task("review a.py", "no bugs", subagent_type="reviewer")
    )
    events = await run(agent, "review it")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "parent done"

    offered = next(t for t in server.requests[0].body["tools"] if t["function"]["name"] == "task")
    about = offered["function"]["description"]
    assert "- reviewer: Reviews code for bugs" in about and "- helper: Helps with anything" in about
    enum = offered["function"]["parameters"]["properties"]["subagent_type"]["enum"]
    assert enum == ["general-purpose", "helper", "reviewer"]
    (sub,) = [r.body for r in server.requests if is_subagent(r.body)]
    system = sub["messages"][0]["content"]
    assert system.startswith("You are the reviewer. Read what you are pointed at")
    assert "You are pleat" not in system  # its own prompt, not the parent's
    assert tool_names(sub) == ["read_file", "grep"]  # Claude Code's names, `task` dropped
    assert sub["messages"][1]["content"] == "review a.py"
    assert server.requests[-1].messages[-1]["content"] == "no bugs"
    notes = definition_notes(agent.registry)
    assert any("broken.md skipped: the front matter has no closing ---" in n for n in notes)


async def test_an_unknown_agent_is_an_error_the_model_reads(
    server: ScriptedServer, workspace: Path, session: Session
) -> None:
    agent = make_agent(server, workspace, session, one_task("x", "never", subagent_type="nobody"))
    await run(agent, "go")
    result = server.requests[-1].messages[-1]["content"]
    assert "must be one of" in result and "nobody" in result
    assert not any(is_subagent(r.body) for r in server.requests)


class HeldSubagents:
    """The parent hands out two tasks; the sub-agents' requests are held until `release` is
    set (then they get an answer the cancelled agents never read)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Reply:
        if is_subagent(body):
            self.release.wait(MEET_TIMEOUT_SECONDS)
            return Text("too late")
        return ToolCalls([task("first", "subtask A"), task("second", "subtask B")])


def assert_subsessions_valid(parent: Session, workspace: Path) -> None:
    """Every sub-agent's journal replays to a valid history that ends its interrupted turn."""
    children = [s for s in list_sessions(workspace) if s.kind == "subagent"]
    assert len(children) == 2 and {s.parent for s in children} == {parent.id}
    for child in children:
        replayed = replay_journal(session_dir(child.id) / "journal.jsonl")
        assert not replayed.problems
        assert_history_valid(replayed.history)
        assert [m.role for m in replayed.history] == ["system", "user", "assistant"]
        assert replayed.history[-1].content == "[interrupted by the user]"


async def test_cancelling_the_parent_cancels_its_subagents_and_every_history_stays_valid(
    server: ScriptedServer, workspace: Path, session: Session
) -> None:
    model = HeldSubagents()
    agent = make_agent(server, workspace, session, model)
    seen: list[Event] = []

    async def consume() -> None:
        async for event in agent.run_turn("do both"):
            seen.append(event)

    running = asyncio.ensure_future(consume())
    try:
        await asyncio.to_thread(server.wait_for_requests, 3)  # the parent's, both sub-agents'
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
    finally:
        model.release.set()
    assert_history_valid(agent.history)
    results = [m for m in agent.history if m.role == "tool"]
    assert [m.content for m in results] == [CANCELLED_TOOL_RESULT] * 2
    assert agent.history[-1].role == "tool"  # nothing was cut mid-reply
    assert_subsessions_valid(session, workspace)
    assert sum(isinstance(e, ToolCallStarted) for e in seen) == 2


async def test_a_front_end_that_stops_reading_stops_the_subagents_too(
    server: ScriptedServer, workspace: Path, session: Session
) -> None:
    """The consumer leaves (aclosing, as the TUI's does when Esc lands while it draws): the
    turn's generators close in order and settle the running calls before the agent closes
    the turn."""
    model = HeldSubagents()
    agent = make_agent(server, workspace, session, model)
    try:
        async with aclosing(agent.run_turn("do both")) as events:
            async for event in events:
                if isinstance(event, SubagentActivity):
                    await asyncio.to_thread(server.wait_for_requests, 3)
                    break
    finally:
        model.release.set()
    assert_history_valid(agent.history)
    assert [m.content for m in agent.history if m.role == "tool"] == [CANCELLED_TOOL_RESULT] * 2
    assert_subsessions_valid(session, workspace)


class RecordingApprover:
    """Says `answer` to every question, and keeps them."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return Decision(self.answer, "" if self.answer else "the user said no")


def writing_subagent(path: str) -> Callable[[dict[str, Any]], Reply]:
    """The parent hands out one task; its sub-agent writes `path`, then reports."""

    def respond(body: dict[str, Any]) -> Reply:
        if is_subagent(body):
            if len(body["messages"]) == 2:
                return ToolCalls([("write_file", {"path": path, "content": "made by a sub\n"})])
            return Text(f"the write said: {body['messages'][-1]['content'][:60]}")
        if body["messages"][-1]["role"] == "user":
            return ToolCalls([task("write the file", f"write {path}")])
        return Text("parent done")

    return respond


@pytest.mark.parametrize("answer", [True, False])
async def test_a_subagents_writes_ask_the_parents_approver_naming_the_task(
    server: ScriptedServer, workspace: Path, session: Session, answer: bool
) -> None:
    server.fallback = writing_subagent("made.txt")
    approver = RecordingApprover(answer)
    agent = build_agent(
        make_config(server), workspace, approver, session=session, permissions=Permissions("ask")
    )
    await run(agent, "make the file")
    (asked,) = approver.asked
    assert asked.tool == "write_file" and asked.asker == "write the file"
    assert (workspace / "made.txt").exists() is answer
    report = server.requests[-1].messages[-1]["content"]
    assert ("refused: the user did not approve write_file" in report) is not answer
    # What the sub-agent changed is the parent's to remember (its compaction ledger reads it).
    (result,) = [m for m in agent.history if m.role == "tool"]
    facts = ResultFacts.of_message(result.meta)
    assert facts is not None and facts.files_written == (("made.txt",) if answer else ())


async def test_plan_mode_holds_for_subagents(
    server: ScriptedServer, workspace: Path, session: Session
) -> None:
    server.fallback = writing_subagent("planned.txt")
    agent = build_agent(
        make_config(server),
        workspace,
        approve_all,
        session=session,
        permissions=Permissions("plan"),
    )
    await run(agent, "make the file")
    assert not (workspace / "planned.txt").exists()
    assert "refused: pleat is in plan mode" in server.requests[-1].messages[-1]["content"]


async def test_a_long_answer_is_bounded_like_any_tool_output(
    server: ScriptedServer, workspace: Path, session: Session
) -> None:
    long_answer = "".join(f"finding {n:05d}: something to say about it\n" for n in range(120))
    server.fallback = one_task("report a lot", long_answer)
    config = make_config(server, compaction=CompactionPolicy(tool_output_max_tokens=300))
    agent = build_agent(
        config, workspace, approve_all, session=session, permissions=Permissions("full-auto")
    )
    await run(agent, "go")
    sent = server.requests[-1].messages[-1]["content"]
    assert len(sent) < len(long_answer) // 2 and "finding 00000" in sent
    (result,) = [m for m in agent.history if m.role == "tool"]
    facts = ResultFacts.of_message(result.meta)
    assert facts is not None and facts.truncated and facts.kept_output is not None
    assert session.outputs.read(facts.kept_output) == long_answer  # kept whole, for paging


async def test_a_looping_subagent_stops_at_the_iteration_cap(
    server: ScriptedServer, workspace: Path, session: Session
) -> None:
    (workspace / "a.txt").write_text("a\n")

    def respond(body: dict[str, Any]) -> Reply:
        if is_subagent(body):
            return ToolCalls([("read_file", {"path": "a.txt"})])
        if body["messages"][-1]["role"] == "user":
            return ToolCalls([task("loop", "read forever")])
        return Text("parent done")

    server.fallback = respond
    agent = build_agent(
        make_config(server, max_tool_iterations=3),
        workspace,
        approve_all,
        session=session,
        permissions=Permissions("full-auto"),
    )
    events = await run(agent, "go")
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer"
    assert sum(is_subagent(r.body) for r in server.requests) == 3
    report = server.requests[-1].messages[-1]["content"]
    assert report.startswith("the sub-agent stopped without an answer: stopped after 3")


# A model litellm knows the prices of (its window and prices come from litellm's local map).
PRICED_MODEL = "gpt-4o-mini"


async def test_subagents_spend_from_the_sessions_budget_and_the_cap_stops_them(
    workspace: Path, session: Session
) -> None:
    (workspace / "a.txt").write_text("some words to read again and again\n" * 1000)

    def respond(body: dict[str, Any]) -> Reply:
        if is_subagent(body):
            # Never done: only the cap stops it. A new range each time, 250 lines: the same
            # lines again would be a short note (tools/rereads.py), and cost next to nothing.
            where = {"offset": len(body["messages"]), "limit": 250}
            return ToolCalls([("read_file", {"path": "a.txt", **where})])
        if body["messages"][-1]["role"] == "user":
            return ToolCalls([task("read", "read a.txt until told to stop")])
        return Text("parent done")

    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}, fallback=respond) as server:
        config = dataclasses.replace(
            make_config(server), model=f"openai/{PRICED_MODEL}", max_budget_usd=0.002
        )
        agent = build_agent(
            config, workspace, approve_all, session=session, permissions=Permissions("full-auto")
        )
        events = await run(agent, "go")
        subagent_calls = sum(is_subagent(r.body) for r in server.requests)
    # The cap stopped the sub-agent before its next call; the parent, whose context is small,
    # still had room for its answer.
    assert isinstance(events[-1], TurnDone) and events[-1].text == "parent done"
    assert 2 <= subagent_calls < config.max_tool_iterations
    assert agent.usage.cost is not None and agent.usage.cost <= 0.002
    assert agent.usage.calls == 2 + subagent_calls  # the parent's two calls, and theirs
    (result,) = [m for m in agent.history if m.role == "tool"]
    assert result.content is not None and "the spending cap of $0.00" in result.content
    await session.sync()
    billed = [
        json.loads(line)
        for line in session.journal.path.read_text().splitlines()
        if '"purpose":"subagent"' in line
    ]
    assert len(billed) == subagent_calls  # journaled in the parent's session: resumed, it counts


async def test_a_subagent_folds_its_own_context_into_its_own_archive(
    server: ScriptedServer, workspace: Path, session: Session
) -> None:
    for name in "abcde":
        (workspace / f"{name}.txt").write_text(f"{name} line of the file to read\n" * 40)
    reads = iter("abcde")

    def respond(body: dict[str, Any]) -> Reply:
        if is_compression(body):
            assert is_subagent(body)  # the parent's context stays small: only the sub folds
            return summary_reply("reading", "read a few files")
        if is_subagent(body):
            name = next(reads, None)
            if name is not None:
                return ToolCalls([("read_file", {"path": f"{name}.txt"})])
            return Text("read all five")
        if body["messages"][-1]["role"] == "user":
            return ToolCalls([task("read files", "read the five files")])
        return Text("parent done")

    server.fallback = respond
    # Folds made at the threshold (no background folds): a background fold still running when
    # the sub-agent ends is cancelled, and its call, cut off, has no usage to count.
    policy = small_policy(tool_output_share=0.4, early_fold_at=1.0)
    config = make_config(server, compaction=policy)
    agent = build_agent(
        config, workspace, approve_all, session=session, permissions=Permissions("full-auto")
    )
    events = await run(agent, "go")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "parent done"
    assert server.requests[-1].messages[-1]["content"] == "read all five"
    (child,) = [s for s in list_sessions(workspace) if s.kind == "subagent"]
    assert child.chunks >= 1 and session.archive.chunks() == []
    compressions = [r for r in server.requests if is_compression(r.body)]
    assert compressions and all(is_subagent(r.body) for r in compressions)
    assert agent.usage.compression_calls == 0  # billed as the sub-agent's calls
    assert agent.usage.calls == sum(1 for _ in server.requests)
