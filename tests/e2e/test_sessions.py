"""Sessions: the journal replays to the live history, resume is exact, crashes at every
compaction step leave a session that resumes without duplicates, one pleat per session."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.events import CompactionDone, Event
from agent.permissions.policy import approve_all
from agent.turn.loop import Agent
from sessions.journal import JOURNAL_NAME, replay_journal
from sessions.lock import SessionBusy
from sessions.messages import Message, ToolCall
from sessions.store import INTERRUPTED_TOOL_RESULT, Session, list_sessions
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

INSTRUCTION_MARK = "[pleat: context compaction"


def summary_reply(continues: bool = False) -> Text:
    flag = "true" if continues else "false"
    return Text(
        f"<topics>parts</topics><continues_previous>{flag}</continues_previous>"
        "<summary>## Task\nlook at the parts</summary>"
    )


def config_for(server: ScriptedServer) -> Config:
    return Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=0,
        compaction=CompactionPolicy(context_window=16_000, tail_messages=4),
    )


def agent_for(
    server: ScriptedServer, session: Session, workspace: Path, history: list[Message] | None = None
) -> Agent:
    agent = build_agent(
        config_for(server), workspace, approve_all, session=session, history=history
    )
    agent.llm.settings = dataclasses.replace(agent.llm.settings, retry_base_delay=0.001)
    return agent


def records(history: list[Message]) -> list[dict[str, Any]]:
    return [m.to_record() for m in history]


async def chat(agent: Agent, prompt: str) -> list[Event]:
    return [e async for e in agent.run_turn(prompt)]


def reading_model(workspace: Path, replies: list[str]) -> Any:
    """A model that reads part files, then answers; summaries when asked to compress."""
    pending = iter(replies)

    def model(body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if INSTRUCTION_MARK in str(last.get("content")):
            return summary_reply(continues=True)
        if last["role"] == "user":
            name = next(pending)
            return ToolCalls([("read_file", {"path": name})])
        return Text("read it")

    return model


async def long_session(
    server: ScriptedServer, workspace: Path, turns: int = 6
) -> tuple[Session, Agent]:
    names = [f"part{i}.txt" for i in range(turns)]
    for i, name in enumerate(names):
        (workspace / name).write_text(
            f"part {i} secret number {1000 + i}\n" + "filler line\n" * 100
        )
    server.fallback = reading_model(workspace, names)
    session = Session.create(workspace, model=TEST_MODEL)
    agent = agent_for(server, session, workspace)
    for i in range(turns):
        await chat(agent, f"read part {i}")
        if i % 2 == 1:
            events = [e async for e in agent.compact()]
            assert isinstance(events[-1], CompactionDone)
    return session, agent


async def test_journal_replays_to_the_live_history(server: ScriptedServer, workspace: Path) -> None:
    session, agent = await long_session(server, workspace)
    assert agent.compactor is not None and agent.compactor.archive.chunks()
    replayed = replay_journal(session.directory / JOURNAL_NAME)
    assert records(replayed.history) == records(agent.history)
    assert replayed.torn_lines == 0
    session.close()


async def test_resume_is_exact_and_hits_the_same_prefix(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = await long_session(server, workspace)
    server.fallback = lambda body: Text("one more answer")
    await chat(agent, "one more question")  # the old session's last request is an ordinary one
    live = records(agent.history)
    session.close()
    resumed, history, notes = Session.resume(session.id)
    assert notes == []
    assert records(history) == live
    agent2 = agent_for(server, resumed, workspace, history)
    server.fallback = lambda body: Text("same prefix")
    last_before = server.requests[-1].messages
    await chat(agent2, "and now?")
    first_after = server.requests[-1]
    # The resumed session's first request extends the old session's last one, byte for byte.
    assert first_after.messages[: len(last_before)] == last_before
    assert first_after.cached_tokens >= first_after.prompt_tokens // 2
    resumed.close()


async def test_new_ids_continue_after_resume(server: ScriptedServer, workspace: Path) -> None:
    session, agent = await long_session(server, workspace, turns=2)
    ids = {m.id for m in agent.history}
    session.close()
    resumed, history, _ = Session.resume(session.id)
    agent2 = agent_for(server, resumed, workspace, history)
    server.fallback = lambda body: Text("ok")
    await chat(agent2, "more")
    assert not ids & {m.id for m in agent2.history[len(history) :]}
    resumed.close()


async def test_torn_last_line_is_ignored_and_reported(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = await long_session(server, workspace, turns=2)
    live = records(agent.history)
    session.close()
    with (session.directory / JOURNAL_NAME).open("a") as journal:
        journal.write('{"type":"message","message":{"role":"assistant","content":"half')
    resumed, history, notes = Session.resume(session.id)
    assert records(history) == live
    assert len(notes) == 1 and "damaged" in notes[0]
    resumed.close()


async def test_tool_call_without_result_is_marked_interrupted(workspace: Path) -> None:
    session = Session.create(workspace, model=TEST_MODEL)
    session.message(Message(role="system", content="sys", id="m1"))
    session.message(Message(role="user", content="run it", id="m2"))
    call = ToolCall("call_1", "run_command", '{"command": "sleep 100"}')
    session.message(Message(role="assistant", content=None, tool_calls=(call,), id="m3"))
    await session.sync()
    session.close()
    resumed, history, notes = Session.resume(session.id)
    assert history[-1].role == "tool" and history[-1].content == INTERRUPTED_TOOL_RESULT
    assert any("interrupted" in n for n in notes)
    assert_history_valid(history)
    resumed.close()
    # The repair itself was journaled: a second resume needs none.
    again, history2, notes2 = Session.resume(session.id)
    assert notes2 == [] and records(history2) == records(history)
    again.close()


class SimulatedCrash(BaseException):
    """Stands for the process dying: nothing after it runs, not even except clauses."""


@pytest.mark.parametrize("step", ["summarized", "archived", "swapped", "recorded"])
async def test_crash_at_each_compaction_step_resumes_cleanly(
    server: ScriptedServer, workspace: Path, step: str
) -> None:
    session, agent = await long_session(server, workspace, turns=4)
    assert agent.compactor is not None
    chunks_before = [(c.number, c.message_count) for c in agent.compactor.archive.chunks()]

    def crash(name: str) -> None:
        if name == step:
            raise SimulatedCrash(name)

    agent.compactor.step_hook = crash
    agent.add(Message(role="user", content="one more request"))
    agent.add(Message(role="assistant", content="one more answer " + "x" * 3000))
    await agent.safe_point()
    with pytest.raises(SimulatedCrash):
        async for _ in agent.compact():
            pass
    # The process is gone: no close(), no flush beyond what the safe points did.
    session.journal._writer.shutdown(wait=True)
    session.lock.release()
    resumed, history, notes = Session.resume(session.id)
    assert_history_valid(history)
    archive = resumed.archive
    stored = [m.id for c in archive.chunks() for part in archive.read_parts(c.number) for m in part]
    assert len(stored) == len(set(stored)), "a message archived twice"
    live = {m.id for m in history}
    folded_and_live = live & set(stored) - {m.id for m in history if m.meta.get("shrunk_to_chunk")}
    assert not folded_and_live, "a message both live and archived"
    if step in ("summarized", "archived"):
        assert [(c.number, c.message_count) for c in archive.chunks()] == chunks_before
        assert records(history)[-1]["content"].startswith("one more answer")
    if step == "archived":
        assert any("never recorded" in n or "cut back" in n for n in notes)
    # The resumed session folds again without trouble.
    agent2 = agent_for(server, resumed, workspace, history)
    events = [e async for e in agent2.compact()]
    assert isinstance(events[-1], CompactionDone)
    stored = [m.id for c in archive.chunks() for part in archive.read_parts(c.number) for m in part]
    assert len(stored) == len(set(stored))
    resumed.close()


@pytest.mark.parametrize("step", ["summarized", "archived", "swapped"])
async def test_a_cancellation_during_the_commit_is_delivered_after_it(
    server: ScriptedServer, workspace: Path, step: str
) -> None:
    """Cancelled once the summary is in, the fold still writes its chunk, swaps the history
    and journals it (one step, in the core: no front end has to hold the cancellation); the
    outcome the consumer never saw is kept for it, and the session resumes without repair."""
    session, agent = await long_session(server, workspace, turns=2)
    assert agent.compactor is not None
    archived_before = sum(c.message_count for c in agent.compactor.archive.chunks())
    agent.add(Message(role="user", content="one more request"))
    agent.add(Message(role="assistant", content="one more answer " + "x" * 3000))
    await agent.safe_point()

    async def fold() -> None:
        async for _ in agent.compact():
            pass

    task = asyncio.ensure_future(fold())
    agent.compactor.step_hook = lambda name: task.cancel() if name == step else None
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not agent.folds.commits.running
    assert agent.history[1].meta.get("kind") == "summary"
    assert sum(c.message_count for c in agent.compactor.archive.chunks()) > archived_before
    missed = agent.folds.take_unannounced()
    assert len(missed) == 1 and isinstance(missed[0], CompactionDone)
    assert agent.folds.take_unannounced() == []
    session.close()
    resumed, history, notes = Session.resume(session.id)
    try:
        assert notes == []
        assert records(history) == records(agent.history)
    finally:
        resumed.close()


async def test_second_open_of_a_session_is_refused(workspace: Path) -> None:
    session = Session.create(workspace, model=TEST_MODEL)
    session.message(Message(role="system", content="sys", id="m1"))
    await session.sync()
    with pytest.raises(SessionBusy) as info:
        Session.resume(session.id)
    assert session.id in str(info.value) and str(os.getpid()) in str(info.value)
    session.close()
    resumed, _, _ = Session.resume(session.id)  # free again once closed
    resumed.close()


async def test_files_are_private_and_hold_no_api_key(
    server: ScriptedServer, workspace: Path
) -> None:
    session, _ = await long_session(server, workspace, turns=4)
    session.close()
    for path in [session.directory, *session.directory.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
        if path.is_file():
            assert TEST_API_KEY not in path.read_text(errors="replace"), path


async def test_sessions_are_listed(server: ScriptedServer, workspace: Path) -> None:
    session, _ = await long_session(server, workspace, turns=2)
    session.close()
    found = list_sessions(workspace)
    assert [s.id for s in found] == [session.id]
    info = found[0]
    assert info.first_request == "read part 0"
    assert info.messages >= 8 and info.chunks == 1
    assert list_sessions(workspace / "elsewhere") == []


def test_journal_lines_are_json(workspace: Path) -> None:
    session = Session.create(workspace, model=TEST_MODEL)
    session.message(Message(role="user", content="ünïcödé \u2028 line", id="m1"))
    session.close()
    lines = (session.directory / JOURNAL_NAME).read_text().rstrip("\n").split("\n")
    assert [json.loads(line)["type"] for line in lines] == ["session", "message"]


async def test_fork_carries_summary_and_chunks_and_stops_at_depth_three(
    server: ScriptedServer, workspace: Path
) -> None:
    from agent.conversation.fork import ForkRefused, fork_session

    session, agent = await long_session(server, workspace, turns=4)
    parent_chunks = [c.number for c in session.archive.chunks()]
    kept = session.outputs.keep("the full text of a cut output\n" * 3)  # cited by number
    lineage = [session.id]
    current, current_agent = session, agent
    for depth in (1, 2, 3):
        server.fallback = lambda body: summary_reply()
        child, history, note = await fork_session(current_agent, current)
        assert child.header["parent"] == lineage[-1] and child.header["fork_depth"] == depth
        assert "new session" in note
        assert [c.number for c in child.archive.chunks()][: len(parent_chunks)] == parent_chunks
        assert child.outputs.read(kept) == session.outputs.read(kept)  # kept outputs go along
        current.close()
        child.close()
        # The child resumes as recorded: its history, its copied chunks kept.
        current, resumed_history, notes = Session.resume(child.id)
        assert notes == [] and records(resumed_history) == records(history)
        assert current.archive.chunks()
        current_agent = agent_for(server, current, workspace, resumed_history)
        lineage.append(child.id)
    with pytest.raises(ForkRefused) as info:
        await fork_session(current_agent, current)
    assert "fork of a fork of a fork" in str(info.value)
    # The reader tool of the last fork reads the chunks it inherited.
    reader = current_agent.registry.get("read_archive")
    assert reader is not None
    output = await reader.run(
        {"action": "search", "query": "secret number 1000"}, current_agent.context
    )
    assert "secret number 1000" in output.text.replace("»", "").replace("«", "")
    current.close()


async def test_after_resume_the_first_instruction_is_its_own_message(
    server: ScriptedServer, workspace: Path
) -> None:
    """A resumed session past the threshold folds before its first call; the instruction comes
    after the last reply as a message of its own, never merged into the user's last prompt."""

    def model(body: dict[str, Any]) -> Text:
        if INSTRUCTION_MARK in str(body["messages"][-1]["content"]):
            return summary_reply()
        return Text("answer " + "word " * 500)

    server.fallback = model
    session = Session.create(workspace, model=TEST_MODEL)
    agent = agent_for(server, session, workspace)  # a 16k window: no fold before the resume
    for i in range(3):
        await chat(agent, f"request {i}")
    session.close()
    assert not any(INSTRUCTION_MARK in str(r.messages[-1]["content"]) for r in server.requests)
    resumed, history, _ = Session.resume(session.id)
    agent = agent_for(server, resumed, workspace, history)
    # Resumed with a smaller window (e.g. another model): past the threshold at once, yet the
    # folded head still fits one compression call beside the system prompt and tool schemas
    # (6,000 tokens: both hold with room for a few more tools' schemas).
    agent.compactor.policy = CompactionPolicy(context_window=6_000)  # type: ignore[union-attr]
    events = await chat(agent, "a request after --continue")
    resumed.close()
    assert any(isinstance(e, CompactionDone) for e in events)
    compression = next(
        r for r in server.requests if INSTRUCTION_MARK in str(r.messages[-1]["content"])
    )
    *sent, instruction = compression.messages
    assert instruction["content"].startswith(INSTRUCTION_MARK)  # its own message, nothing before
    assert sent[-1]["role"] == "assistant"
    before_resume = server.requests[2].messages
    # The call shares its prefix with the last request of the earlier run: a cache hit.
    shared = min(len(sent), len(before_resume))
    assert sent[:shared] == before_resume[:shared] and shared >= len(before_resume) - 1
    assert compression.cached_tokens > 0
