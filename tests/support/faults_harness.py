"""Shared by the fault-matrix tests: an agent on a real session, and the checks every row makes."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from typing import Any

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.events import Event, TurnDone
from agent.headless.run import run_turn
from agent.headless.text_report import TextReport
from agent.permissions.policy import approve_all
from agent.turn.loop import Agent
from sessions.messages import Message
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text

# A window the scripted provider's small histories sit well inside; the archive tests fill it.
WINDOW = 16_000
# Retries wait a millisecond: the number of tries is under test, not the backoff's length.
FAST_RETRY = 0.001
# What the provider says once the fault is over, to prove the next turn works.
RECOVERED = "the next turn works"


def open_agent(
    server: ScriptedServer, workspace: Path, *, policy: dict[str, Any] | None = None, **config: Any
) -> tuple[Session, Agent]:
    """A new session and its agent, as `pleat` builds them, against the scripted server."""
    settings = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        compaction=CompactionPolicy(**{"context_window": WINDOW, **(policy or {})}),
        **{"max_retries": 1, **config},
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(settings, workspace, approve_all, session=session)
    agent.llm.settings = dataclasses.replace(agent.llm.settings, retry_base_delay=FAST_RETRY)
    return session, agent


async def turn(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run_turn(prompt)]


async def headless_turn(agent: Agent, prompt: str) -> tuple[int, str, str]:
    """One turn as `pleat -p` runs it: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = await run_turn(agent, prompt, TextReport(out, err), err)
    return code, out.getvalue(), err.getvalue()


def records(history: list[Message]) -> list[dict[str, Any]]:
    return [m.to_record() for m in history]


def assert_one_line(text: str) -> None:
    assert text.strip() and "\n" not in text.strip(), f"not one line: {text!r}"


async def assert_survives(server: ScriptedServer, session: Session, agent: Agent) -> None:
    """What every row expects after its fault: the history is valid, the next turn works, and
    the session, closed and resumed, holds exactly the live history (no message lost)."""
    assert_history_valid(agent.history)
    server.push(Text(RECOVERED))
    events = await turn(agent, "and now?")
    done = events[-1]
    assert isinstance(done, TurnDone) and done.text == RECOVERED, events[-3:]
    assert_history_valid(agent.history)
    live = records(agent.history)
    session.close()
    resumed, history, notes = Session.resume(session.id)
    try:
        assert notes == [], notes
        assert records(history) == live
    finally:
        resumed.close()
