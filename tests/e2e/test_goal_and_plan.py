"""The plan and the goal survive every fold (issue 25): a plan accepted through exit_plan_mode and
a goal set with --goal stand word for word in the request the server receives after two folds
and a --continue, taken by pleat's code (the model's summaries never mention them); /fork keeps
the goal; --goal clear tells the model once. The real agent and headless runs (in process)
against the scripted server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.config import Config
from agent.permissions.plan_mode import PLAN_TOOL, PlanVerdict
from agent.permissions.policy import Permissions, approve_all
from agent.turn.goal import CLEARED_NOTE
from sessions.journal import JOURNAL_NAME, replay_journal
from sessions.paths import session_dir
from sessions.store import Session, latest_session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow: eight headless runs one after another (in process), about 7 s.
pytestmark = pytest.mark.slow

INSTRUCTION_MARK = "[pleat: context compaction"
PLAN = (
    "1. Fix `parse_range`: the end is inclusive (see tests/test_ranges.py).\n"
    "2. Add a regression test for ranges ending at 0.\n"
    "3. Run `pytest -q` and report."
)
GOAL = "All tests pass on Python 3.13 — no new dependency, no change to the public API."
# A small kept tail, so that each /compact folds what came before it.
SMALL_TAIL = ("--compaction", "tail_messages=2")


class Model:
    """Presents the plan on the first request, answers the others, and summarizes with a
    summary that never mentions the plan or the goal (so what carries them is pleat's code)."""

    def __init__(self) -> None:
        self.summaries = 0
        self.planned = False

    def __call__(self, body: dict[str, Any]) -> Text | ToolCalls:
        messages = body["messages"]
        if INSTRUCTION_MARK in str(messages[-1].get("content")):
            self.summaries += 1
            return Text(f"<topics>ranges {self.summaries}</topics><summary>Fold {self.summaries}."
                        "</summary>")  # fmt: skip
        if not self.planned:
            self.planned = True
            return ToolCalls([(PLAN_TOOL, {"plan": PLAN})])
        return Text("done with that")


async def plan_accepted_in(workspace: Path, server: ScriptedServer) -> None:
    """A first session in plan mode whose plan the user accepts (as the TUI's review does)."""

    async def accept(plan: str) -> PlanVerdict:
        return PlanVerdict("accepted")

    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY)
    session = Session.create(workspace, model=TEST_MODEL)
    permissions = Permissions.from_settings("plan", (), ())
    agent = build_agent(
        config, workspace, approve_all, session=session, permissions=permissions, review_plan=accept
    )
    try:
        events = [event async for event in agent.run_turn("plan the range fix")]
        assert permissions.mode == "accept-edits", events  # the plan was accepted
    finally:
        session.close()


def user_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("content")) for m in messages if m["role"] == "user"]


def compactions(session_id: str) -> list[dict[str, Any]]:
    lines = (session_dir(session_id) / JOURNAL_NAME).read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["type"] == "compaction"]


def test_the_plan_and_the_goal_stand_verbatim_after_two_folds_and_a_resume(
    workspace: Path,
) -> None:
    model = Model()
    with ScriptedServer(fallback=model) as server:
        asyncio.run(plan_accepted_in(workspace, server))
        runs = [run_pleat(workspace, server, "--continue", "--goal", GOAL, "-p", "go on")]
        goal_told = server.requests[-1].messages
        for prompt in ("/compact", "more work", "/compact"):
            runs.append(run_pleat(workspace, server, *SMALL_TAIL, "--continue", "-p", prompt))
        asked = len(server.requests)
        runs.append(run_pleat(workspace, server, "--continue", "-p", "what is left?"))
        resumed = server.requests[asked].messages
        parent = latest_session(workspace)
        runs.append(run_pleat(workspace, server, "--continue", "-p", "/fork"))
        child = runs[-1].stdout.split()[-1]  # /fork prints the child's id last
        forked_goal = replay_journal(session_dir(child) / JOURNAL_NAME).goal
        runs.append(run_pleat(workspace, server, "--continue", "--goal", "clear", "-p", "next"))
        cleared = server.requests[-1].messages
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert model.summaries == 3  # two folds, and the fork's

    # The goal is told once, with the prompt that came with --goal.
    assert sum(GOAL in text for text in user_texts(goal_told)) == 1
    # The request after two folds and a resume: both word for word, in the summary message.
    summary = next(text for text in user_texts(resumed) if text.startswith("[pleat: the earlier"))
    assert f"\n{GOAL}\n" in summary and f"\n{PLAN}\n" in summary
    assert "Fold 2." in summary
    assert not any(m.get("tool_calls") for m in resumed)  # the exit_plan_mode call is folded
    assert sum(GOAL in text for text in user_texts(resumed)) == 1  # no second goal note

    assert parent is not None
    folds = compactions(parent)
    assert [f["history"][1]["meta"].get("plan") for f in folds] == [PLAN, PLAN, PLAN]
    assert [f["history"][1]["meta"].get("goal") for f in folds] == [GOAL, GOAL, GOAL]
    # The fork carries the goal; clearing it there (the latest session) says so once, and
    # leaves the parent's.
    assert forked_goal == GOAL and latest_session(workspace) == child
    assert user_texts(cleared)[-1].endswith(f"next\n\n{CLEARED_NOTE}")  # with its prompt
    assert replay_journal(session_dir(child) / JOURNAL_NAME).goal is None
    assert replay_journal(session_dir(parent) / JOURNAL_NAME).goal == GOAL
