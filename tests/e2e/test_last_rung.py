"""The last rung of the ladder: when a request cannot fit even after folding, the largest tool
results are archived verbatim and stubbed, and the turn goes on; only a request whose own
parts cannot fit ends with "context window exceeded", naming what to shorten."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.events import CompactionDone, ErrorEvent, Event, TurnDone
from agent.permissions.policy import approve_all
from agent.turn.loop import Agent
from sessions.journal import JOURNAL_NAME, replay_journal
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

WINDOW = 8_000
# Parallel reads in one reply: each gets at least a quarter of a whole result's budget, so
# sixteen of them cannot all fit an 8k window.
PARTS = 16
INSTRUCTION_MARK = "[pleat: context compaction"
SUMMARY = "<topics>parts</topics><summary>## Task\nread the parts</summary>"


def make_agent(server: ScriptedServer, workspace: Path, **policy: Any) -> tuple[Agent, Session]:
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=0,
        compaction=CompactionPolicy(context_window=WINDOW, **policy),
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve_all, session=session)
    agent.llm.settings = dataclasses.replace(agent.llm.settings, retry_base_delay=0.001)
    return agent, session


async def run(agent: Agent, prompt: str) -> list[Event]:
    return [e async for e in agent.run_turn(prompt)]


async def test_parallel_results_too_big_together_are_shrunk_and_the_turn_goes_on(
    server: ScriptedServer, workspace: Path
) -> None:
    """Sixteen reads in one reply, each within its share of the budget, overflow the window
    together: nothing older can be folded, so the results are stubbed (originals archived) and
    the model reads them back one at a time."""
    for i in range(PARTS):
        (workspace / f"part{i}.txt").write_text(
            "".join(f"part {i} line {n}: some words here\n" for n in range(120))
        )
    server.context_window = WINDOW
    reads = [("read_file", {"path": f"part{i}.txt"}) for i in range(PARTS)]

    def model(body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if INSTRUCTION_MARK in str(last["content"]):
            return Text(SUMMARY)
        if last["role"] == "user":
            return ToolCalls(reads)
        stubbed = [m for m in body["messages"] if "did not fit the context window" in str(m)]
        if last.get("name") == "read_archive" or not stubbed:
            return Text("read them all")
        stub = str(stubbed[0]["content"])
        message_id = stub.split("read_archive action=read id=")[1].split(" ")[0]
        return ToolCalls([("read_archive", {"action": "read", "id": message_id})])

    server.fallback = model
    agent, session = make_agent(server, workspace, tool_output_share=0.3)
    events = await run(agent, "read the parts at once")
    session.close()
    done = events[-1]
    assert isinstance(done, TurnDone) and done.text == "read them all", events[-3:]
    assert max(r.prompt_tokens for r in server.requests) <= WINDOW
    shrinks = [e for e in events if isinstance(e, CompactionDone) and e.method == "shrink"]
    assert shrinks and shrinks[0].shrunk_messages >= 1 and shrinks[0].folded_messages == 0
    # Each stub names its original, which the archive holds verbatim.
    stubs = [m for m in shrinks[0].history if m.meta.get("shrunk_to_chunk")]
    assert len(stubs) == shrinks[0].shrunk_messages
    originals = {m.id: m for _, m in (session.archive.find(s.id) or (0, None) for s in stubs) if m}
    for stub in stubs:
        original = originals[stub.id]
        assert original.content is not None and original.content.startswith("     1\tpart ")
        assert stub.content is not None and original.content[:100] in stub.content
    # The model read one back through the reader: the archived text reached it.
    reader = [m for m in agent.history if m.role == "tool" and m.name == "read_archive"]
    assert reader and "shrunk original, full text" in (reader[-1].content or "")
    assert_history_valid(agent.history)
    # The journal holds the stubbed history: a resume is the same conversation.
    replayed = replay_journal(session.directory / JOURNAL_NAME)
    assert [m.content for m in replayed.history] == [m.content for m in agent.history]


async def test_a_request_too_big_by_itself_says_what_to_shorten(
    server: ScriptedServer, workspace: Path
) -> None:
    server.context_window = WINDOW
    agent, session = make_agent(server, workspace)
    events = await run(agent, "please look at this: " + "pasted log line\n" * 4_000)
    session.close()
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].kind == "context_overflow"
    message = errors[0].message
    assert message.startswith("context window exceeded: the system prompt (")
    assert "the tool schemas (" in message and "your message (" in message
    assert message.endswith("shorten your message")
    assert "\n" not in message
    assert server.requests == []  # nothing was sent that the provider would refuse
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "error"
    assert_history_valid(agent.history)


async def test_a_request_too_big_by_itself_leaves_the_conversation_for_good(
    server: ScriptedServer, workspace: Path
) -> None:
    """Refused, it is taken back (a journaled rewind): the next request does not carry it past
    the window, and a resume does not bring it back."""
    server.context_window = WINDOW
    agent, session = make_agent(server, workspace)
    await run(agent, "please look at this: " + "pasted log line\n" * 4_000)
    assert not any("pasted log line" in (m.content or "") for m in agent.history)
    server.push(Text("a short answer"))
    events = await run(agent, "a small question")
    session.close()
    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer"
    assert "pasted log line" not in str(server.requests[-1].body["messages"])
    replayed = replay_journal(session.directory / JOURNAL_NAME)
    assert replayed.problems == [] and replayed.torn_lines == 0
    assert not any("pasted log line" in (m.content or "") for m in replayed.history)
    assert [m.content for m in replayed.history if m.role == "user"][-1] == "a small question"


async def test_a_fold_that_cannot_free_anything_is_not_attempted(
    server: ScriptedServer, workspace: Path
) -> None:
    """Past the threshold with only the short request before the newest (unread, so never
    folded) result, no compression call is made: its summary would be as big as what it
    folds."""
    (workspace / "wide.txt").write_text("".join(f"row {n} " + "x" * 60 + "\n" for n in range(400)))
    server.context_window = WINDOW
    server.push(ToolCalls([("read_file", {"path": "wide.txt"})]), Text("done"))
    agent, session = make_agent(server, workspace, tool_output_share=0.5, threshold=0.5)
    events = await run(agent, "hi")
    session.close()
    assert isinstance(events[-1], TurnDone) and events[-1].text == "done", events[-3:]
    assert agent.compactor is not None
    assert server.requests[-1].prompt_tokens >= agent.compactor.budget.trigger_tokens * 0.9
    assert not [r for r in server.requests if INSTRUCTION_MARK in str(r.messages[-1])]
    assert max(r.prompt_tokens for r in server.requests) <= WINDOW
