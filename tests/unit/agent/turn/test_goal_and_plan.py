"""What code carries through folds besides the task list: the goal (checked, journaled, told to
the model once per change) and the accepted plan (found in the history, or in the summary
message that folded it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.compaction.rebuild import GOAL_KEY
from agent.permissions.plan_mode import ACCEPTED, KEEP_PLANNING, PLAN_KEY, PLAN_TOOL, accepted_plan
from agent.turn.goal import CLEARED_NOTE, goal_note
from sessions.goal import MAX_GOAL_CHARS, GoalError, checked_goal, goal_record
from sessions.journal import replay_journal
from sessions.messages import Message, ToolCall, tool_result


def plan_call(call_id: str, plan: str, result: str) -> list[Message]:
    call = ToolCall(call_id, PLAN_TOOL, json.dumps({"plan": plan}))
    return [Message(role="assistant", tool_calls=(call,)), tool_result(call, result)]


def summary(**meta: str) -> Message:
    return Message(role="user", content="[summary]", meta={"kind": "summary", **meta})


def test_the_accepted_plan_is_the_newest_accepted_call_else_the_summarys() -> None:
    system = Message(role="system", content="s")
    hooked = f"{ACCEPTED}\n[PostToolUse hook said] fine"  # a hook's words after pleat's
    history = [
        system,
        summary(**{PLAN_KEY: "the folded plan"}),
        *plan_call("a", "plan A", hooked),
        *plan_call("b", "plan B", KEEP_PLANNING),  # not accepted: plan A stands
    ]
    assert accepted_plan(history) == "plan A"
    assert accepted_plan(history[:2]) == "the folded plan"  # the call folded away
    assert accepted_plan([system, summary()]) is None
    forged = [system, Message(role="assistant", content=ACCEPTED)]  # not a tool result
    assert accepted_plan(forged) is None


def test_the_goal_is_told_once_per_change_and_a_summary_counts_as_told() -> None:
    history = [Message(role="system", content="s"), Message(role="user", content="hi")]
    assert goal_note(None, history) is None  # never set: nothing to say
    note = goal_note("ship it", history)
    assert note is not None and note.content is not None and note.content.endswith("\nship it")
    assert goal_note("ship it", [*history, note]) is None
    assert goal_note("ship it", [history[0], summary(**{GOAL_KEY: "ship it"})]) is None
    changed = goal_note("ship it twice", [*history, note])
    assert changed is not None and changed.meta["injected"]
    cleared = goal_note(None, [*history, note])
    assert cleared is not None and cleared.content == CLEARED_NOTE
    assert goal_note(None, [history[0], summary()]) is None  # the fold had no goal either


def test_a_goal_is_checked_and_its_last_record_is_what_a_resume_gets(tmp_path: Path) -> None:
    assert checked_goal("  the suite passes  ") == "the suite passes"
    for bad, said in (("  ", "empty"), ("x" * (MAX_GOAL_CHARS + 1), "at most"), ("\ud800", "lone")):
        with pytest.raises(GoalError, match=said):
            checked_goal(bad)
    journal = tmp_path / "journal.jsonl"
    records = [
        {"type": "session", "v": 1},
        goal_record("first goal", "t"),
        goal_record("second goal", "t"),
        {"type": "goal", "goal": 42},  # damaged: skipped and said
    ]
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    replayed = replay_journal(journal)
    assert replayed.goal == "second goal" and replayed.torn_lines == 1
    journal.write_text(journal.read_text() + json.dumps(goal_record(None, "t")) + "\n")
    assert replay_journal(journal).goal is None
