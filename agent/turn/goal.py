"""The session's goal (/goal, --goal): set and journaled, told to the model with the next prompt,
carried word for word by every summary message (agent/compaction/rebuild.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agent.compaction.rebuild import GOAL_KEY
from agent.turn.recorder import Recorder
from sessions.goal import goal_record
from sessions.journal import now
from sessions.messages import Message, is_summary

# The word that drops the goal: `/goal clear`, `--goal clear`.
CLEAR = "clear"
# The meta key of a goal note: the goal it told the model (None: that it was cleared).
NOTE_KEY = "goal_note"
# Injected after the next prompt once the goal is set or changed ...
SET_NOTE = (
    "[pleat: goal] The user set the goal of this session; pleat keeps it word for word through "
    "every fold. Work towards it, and say when it is met:\n{goal}"
)
# ... and once it is cleared.
CLEARED_NOTE = "[pleat: goal] The user cleared the goal of this session: there is none now."


class GoalHolder(Protocol):
    """What setting the goal uses of the agent (agent/turn/loop.py)."""

    goal: str | None
    recorder: Recorder | None


def set_goal(agent: GoalHolder, goal: str | None) -> None:
    """Make `goal` (checked: sessions/goal.py checked_goal; None clears it) the session's goal
    and journal it, so --continue, /resume and /fork keep it."""
    agent.goal = goal
    if agent.recorder is not None:
        agent.recorder.record(goal_record(goal, now()))


def told_goal(history: Sequence[Message]) -> str | None:
    """The goal the model was last told: by the newest goal note, else by the summary message
    at the head of the history (which carries the goal of its fold), else none."""
    for message in reversed(history):
        if NOTE_KEY in message.meta:
            told = message.meta[NOTE_KEY]
            return told if isinstance(told, str) else None
        if is_summary(message):
            kept = message.meta.get(GOAL_KEY)
            return kept if isinstance(kept, str) else None
    return None


def goal_note(goal: str | None, history: Sequence[Message]) -> Message | None:
    """The note to inject after the user's prompt when the goal differs from what the model was
    last told (set, changed or cleared since); otherwise none. A user-role message marked
    injected: the TUI does not show it, the ledger does not take it for a request."""
    if goal == told_goal(history):
        return None
    text = CLEARED_NOTE if goal is None else SET_NOTE.format(goal=goal)
    return Message(role="user", content=text, meta={"injected": True, NOTE_KEY: goal})
