"""A summary message whose ledger was lost (a damaged or hand-edited journal) folds again."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.events import CompactionDone
from agent.permissions.policy import approve_all
from sessions.messages import Message, is_summary
from sessions.store import Session
from tests.support.constants import TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import assert_valid_history, make_config

# Slow (a fold against the scripted server, litellm imported): left out of the fast set.
pytestmark = pytest.mark.slow

# The compression reply of the scripted model.
SUMMARY_REPLY = Text(
    "<topics>second fold</topics><continues_previous>false</continues_previous>"
    "<summary>## Task\nKeep going.</summary>"
)


async def test_a_summary_without_its_ledger_folds_again(
    server: ScriptedServer, workspace: Path
) -> None:
    history = [
        Message("system", "you are pleat", id="m0"),
        Message("user", "[pleat: earlier summary]", id="m1", meta={"kind": "summary"}),
        *(
            Message(role, f"{role} message {n} " + "words " * 50, id=f"m{n + 2}")
            for n, role in enumerate(["user", "assistant"] * 4)
        ),
    ]
    assert is_summary(history[1]) and "ledger" not in history[1].meta
    config = make_config(
        server, compaction=CompactionPolicy(context_window=16_000, tail_messages=2)
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve_all, session=session, history=history)
    server.push(SUMMARY_REPLY)
    try:
        events = [e async for e in agent.compact()]
    finally:
        session.close()
    assert isinstance(events[-1], CompactionDone), events[-1]
    assert is_summary(agent.history[1]) and "ledger" in agent.history[1].meta
    assert_valid_history(agent.history)
