"""A summary you can see and steer (issue 25): the configured instructions reach every compression
instruction; a previewed summary discarded leaves history, archive and journal as they were, an
edited one is what the summary message carries; "fold up to here" folds exactly the turns before
the chosen one; headless, /compact --preview prints the summary and applies nothing. The real
agent against the scripted server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from agent.events import CompactionDone, CompactionFailed, Event
from agent.turn.folds import DISCARDED
from agent.turn.loop import Agent
from sessions.journal import JOURNAL_NAME
from sessions.messages import is_summary
from sessions.store import Session
from tests.support.compaction_agent import is_compression, make_agent, run
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text

INSTRUCTIONS = "Keep every port number and every migration id exactly as written."


def answer(body: dict[str, Any]) -> Text:
    if is_compression(body):
        return Text("<topics>ports</topics><summary>The model's own summary.</summary>")
    return Text("noted")


async def folded(agent: Agent, **how: Any) -> Event:
    """The outcome of one fold (its last event)."""
    events = [event async for event in agent.compact(**how)]
    assert isinstance(events[-1], CompactionDone | CompactionFailed), events
    return events[-1]


def journal_kinds(session: Session) -> list[str]:
    return [json.loads(line)["type"] for line in session.journal.path.read_text().splitlines()]


def test_instructions_preview_edit_and_fold_up_to_here(workspace: Path) -> None:
    async def scenario(server: ScriptedServer) -> None:
        agent = make_agent(server, workspace, instructions=INSTRUCTIONS, tail_messages=2)
        session = agent.recorder
        assert isinstance(session, Session)
        for prompt in ("the API listens on port 8443", "migration 0042 adds users", "and then"):
            await run(agent, prompt)

        async def edit(summary: str) -> str:
            return "Edited by the user: port 8443, migration 0042."

        assert isinstance(await folded(agent, review=edit), CompactionDone)
        summary = agent.history[1]
        assert is_summary(summary) and "Edited by the user: port 8443" in (summary.content or "")
        assert "The model's own summary." not in (summary.content or "")

        await run(agent, "now the tests")
        await run(agent, "and the docs")
        archived = [(c.number, c.path.read_bytes()) for c in session.archive.chunks()]
        before, kinds = list(agent.history), journal_kinds(session)
        shown: list[str] = []

        async def discard(summary: str) -> None:
            shown.append(summary)

        assert await folded(agent, review=discard) == CompactionFailed("manual", DISCARDED, True)
        assert shown == ["The model's own summary."]
        await session.sync()
        assert agent.history == before and len(archived) == 1
        assert [(c.number, c.path.read_bytes()) for c in session.archive.chunks()] == archived
        assert journal_kinds(session) == [*kinds, "usage"]  # the call is billed; nothing else

        chosen = next(m for m in agent.history if m.content == "now the tests")
        kept = agent.history[agent.history.index(chosen) :]
        assert isinstance(await folded(agent, before=chosen.id), CompactionDone)
        assert agent.history[2:] == kept  # the chosen request and the rest, word for word
        cut = server.requests[-1].messages  # the fold's call: the conversation up to the request
        assert "now the tests" not in json.dumps(cut) and is_compression(server.requests[-1].body)
        nothing = await folded(agent, before=chosen.id)  # now right after the summary
        assert isinstance(nothing, CompactionFailed) and "nothing before that" in nothing.message
        assert agent.history[2:] == kept
        session.close()

    with ScriptedServer(fallback=answer) as server:
        asyncio.run(scenario(server))
        compressions = [
            r.messages[-1]["content"] for r in server.requests if is_compression(r.body)
        ]
    assert len(compressions) == 3 and all(INSTRUCTIONS in text for text in compressions)


def test_headless_preview_prints_the_summary_and_applies_nothing(
    workspace: Path, pleat_home: Path
) -> None:
    with ScriptedServer(fallback=answer) as server:
        runs = [run_pleat(workspace, server, "-p", "first")]
        runs.append(run_pleat(workspace, server, "--continue", "-p", "second"))
        runs.append(run_pleat(workspace, server, "--continue", "-p", "/compact --preview ports"))
    for done in runs:
        assert done.returncode == 0, done.stderr
    assert runs[-1].stdout == "The model's own summary.\n"
    assert "a preview: summary discarded: nothing archived" in runs[-1].stderr
    assert "focus on: ports" in server.requests[-1].messages[-1]["content"]
    (session,) = (pleat_home / "sessions").iterdir()
    assert not list(session.glob("chunks/chunk-*.md"))
    assert '"type":"compaction"' not in (session / JOURNAL_NAME).read_text()
