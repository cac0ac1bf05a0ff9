"""The session's goal as it is kept: its bounds, checked, and its journal record."""

from __future__ import annotations

from typing import Any

from sessions.lone_surrogates import has_lone_surrogate

# The journal record that sets (or, with `goal` null, clears) the session's goal; the last one
# replayed is the goal a resumed session has.
GOAL_RECORD = "goal"
# Characters of a goal: a goal is a sentence or a short paragraph ("the test suite passes on
# Python 3.13, no new dependency"); it rides in every summary message, so it stays small (2,000
# characters: about 500 tokens).
MAX_GOAL_CHARS = 2_000


class GoalError(ValueError):
    """A goal pleat does not keep: one line saying why."""


def checked_goal(text: str) -> str:
    """The goal as typed, without the blanks around it; raises GoalError when it is empty, too
    long or holds a character UTF-8 cannot write."""
    goal = text.strip()
    if not goal:
        raise GoalError("the goal is empty: say what the session is to achieve")
    if len(goal) > MAX_GOAL_CHARS:
        raise GoalError(
            f"the goal is {len(goal):,} characters; at most {MAX_GOAL_CHARS:,}: say what is to be "
            "achieved, not how"
        )
    if has_lone_surrogate(goal):
        raise GoalError("the goal holds an invalid character (a lone UTF-16 surrogate)")
    return goal


def goal_record(goal: str | None, time: str) -> dict[str, Any]:
    """The journal record setting `goal` (None: cleared) at `time`."""
    return {"type": GOAL_RECORD, "time": time, "goal": goal}


def recorded_goal(record: dict[str, Any]) -> str | None:
    """The goal a goal record sets; raises ValueError for one this version could not have
    written (a damaged line)."""
    goal = record.get("goal")
    if goal is None:
        return None
    if not isinstance(goal, str):
        raise ValueError("a goal that is not text")
    return checked_goal(goal)
