"""A live session switched to a model with a smaller window: folded first (by the current model,
cut for the new one's budget), or by the new model's own ladder when the current one cannot; the
journal holds what the new model works on. Real litellm, the scripted server, real files."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.config import Config
from agent.conversation.model_switch import needs_room, switch_model
from agent.events import CompactionDone, CompactionFailed, Event
from agent.permissions.policy import approve_all
from agent.turn.loop import Agent
from sessions.messages import Message, is_summary
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import Error, Reply, ScriptedServer, Text
from tests.support.tui_support import assert_valid_history, is_compression, summary_reply

# Slow: litellm's import, and model calls over real sockets.
pytestmark = pytest.mark.slow

# A model litellm knows with a small window (8,192 tokens, 4,096 out), served by the scripted
# server under its bare name; the session starts on TEST_MODEL, which litellm does not know
# (so its window is the 32,768-token fallback).
SMALL_MODEL = "openai/gpt-4"
# Words of each answer: three of them (about 2,000 tokens each) pass the small model's fold
# threshold and stay well under the first model's.
ANSWER_WORDS = 2_000


def config_for(server: ScriptedServer, model: str) -> Config:
    return Config(model=model, api_base=server.base_url, api_key=TEST_API_KEY, max_retries=0)


def responder(compress: Callable[[dict[str, Any]], Reply]) -> Callable[[dict[str, Any]], Reply]:
    def respond(body: dict[str, Any]) -> Reply:
        if is_compression(body):
            return compress(body)
        return Text("word " * ANSWER_WORDS)

    return respond


async def talk(agent: Agent, turns: int) -> None:
    for n in range(turns):
        async for _ in agent.run_turn(f"question {n}"):
            pass


async def switch(
    agent: Agent, session: Session, server: ScriptedServer, workspace: Path
) -> tuple[list[Event], Agent]:
    adopted: list[Agent] = []

    def build(history: list[Message]) -> Agent:
        config = config_for(server, SMALL_MODEL)
        return build_agent(config, workspace, approve_all, session=session, history=history)

    events = [e async for e in switch_model(agent, build, adopted.append)]
    assert len(adopted) == 1
    return events, adopted[0]


def make_session(server: ScriptedServer, workspace: Path) -> tuple[Session, Agent]:
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config_for(server, TEST_MODEL), workspace, approve_all, session=session)
    return session, agent


def test_the_current_model_folds_for_the_smaller_window(workspace: Path) -> None:
    with ScriptedServer(api_key=TEST_API_KEY) as server:
        server.fallback = responder(lambda _: summary_reply("three questions"))
        session, agent = make_session(server, workspace)
        asyncio.run(talk(agent, 3))
        assert not needs_room(agent)  # the first model has room to spare
        sent = len(server.requests)
        events, incoming = asyncio.run(switch(agent, session, server, workspace))
        folds = [e for e in events if isinstance(e, CompactionDone)]
        assert [f.reason for f in folds] == ["model_switch"]
        compressions = [r for r in server.requests[sent:] if is_compression(r.body)]
        assert [r.body["model"] for r in compressions] == [TEST_MODEL]  # the current model
        assert incoming.llm.model == SMALL_MODEL
        assert incoming.compactor is not None
        # Cut for the new model: its tail budget, and the context under its fold threshold.
        budget = incoming.compactor.budget
        assert budget.window == 8_192
        assert not needs_room(incoming)
        assert is_summary(incoming.history[1])
        asked = re.search(r"in about (\d+) tokens", compressions[0].messages[-1]["content"])
        assert asked is not None and int(asked.group(1)) <= budget.summary_cap  # not the first
        # model's cap (its window is four times larger)
        assert_valid_history(incoming.history)
        session.close()
        reopened, resumed, _ = Session.resume(session.id)  # the journal holds the folded one
        reopened.close()
        assert [m.id for m in resumed] == [m.id for m in incoming.history]


def test_the_new_model_folds_when_the_current_one_cannot(workspace: Path) -> None:
    with ScriptedServer(api_key=TEST_API_KEY) as server:

        def compress(body: dict[str, Any]) -> Reply:
            if body["model"] == TEST_MODEL:  # the model being left is down
                return Error(503, "the old model is overloaded", type="server_error")
            return summary_reply("folded by the new model")

        server.fallback = responder(compress)
        session, agent = make_session(server, workspace)
        asyncio.run(talk(agent, 3))
        sent = len(server.requests)
        events, incoming = asyncio.run(switch(agent, session, server, workspace))
        outcomes = [e for e in events if isinstance(e, CompactionDone | CompactionFailed)]
        assert isinstance(outcomes[0], CompactionFailed)
        assert isinstance(outcomes[-1], CompactionDone)
        models = [r.body["model"] for r in server.requests[sent:] if is_compression(r.body)]
        assert models[0] == TEST_MODEL and models[-1] == "gpt-4"
        assert incoming.compactor is not None and incoming.compactor.fits(incoming.history)
        assert_valid_history(incoming.history)
        session.close()


def test_a_larger_window_switches_without_a_fold(workspace: Path) -> None:
    with ScriptedServer(api_key=TEST_API_KEY) as server:
        server.fallback = responder(lambda _: summary_reply())
        session = Session.create(workspace, model=SMALL_MODEL)
        small = build_agent(
            config_for(server, SMALL_MODEL), workspace, approve_all, session=session
        )
        asyncio.run(talk(small, 1))
        adopted: list[Agent] = []

        def build(history: list[Message]) -> Agent:
            config = dataclasses.replace(config_for(server, TEST_MODEL))
            return build_agent(config, workspace, approve_all, session=session, history=history)

        before = len(server.requests)
        events = asyncio.run(_collect(switch_model(small, build, adopted.append)))
        assert events == [] and len(server.requests) == before
        assert adopted[0].llm.settings.model == TEST_MODEL
        assert [m.id for m in adopted[0].history] == [m.id for m in small.history]
        session.close()


async def _collect(events: Any) -> list[Event]:
    return [e async for e in events]
