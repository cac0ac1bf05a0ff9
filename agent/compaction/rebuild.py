"""Step 6: the summary message (goal, summary, plan, task list, ledger, chunk index, anchor) and
the new history."""

from __future__ import annotations

from collections.abc import Sequence

from agent.compaction.ledger import Ledger
from agent.compaction.ledger_render import render_ledger
from agent.permissions.plan_mode import PLAN_KEY
from sessions.archive import ChunkInfo
from sessions.messages import Message
from tools.kept_output_reader import READER_TOOL_NAME
from tools.todo_list import SUMMARY_KEY, TODO_TOOL_NAME, TodoItem, render_todos

# The summary message's meta key for the session's goal (agent/turn/goal.py reads it back).
GOAL_KEY = "goal"
# Previous chunks listed in the summary message, newest first; older ones are counted. Ten
# lines keep the index small while covering a long working day of folds.
MAX_INDEXED_CHUNKS = 10
READER_TOOL = READER_TOOL_NAME


def chunk_line(chunk: ChunkInfo) -> str:
    topics = chunk.topics or "no topics"
    return f"chunk {chunk.number}: {topics} (messages {chunk.first_id}-{chunk.last_id})"


def archive_section(current: ChunkInfo | None, previous: Sequence[ChunkInfo]) -> str:
    """Where the folded messages are and how to read them back."""
    lines = ["## Archive"]
    if current is not None:
        lines.append(f"The messages folded just now are {chunk_line(current)}.")
    older = [c for c in previous if current is None or c.number != current.number]
    if older:
        lines.append("Earlier chunks, newest first:")
        shown = list(reversed(older))[:MAX_INDEXED_CHUNKS]
        lines += [f"- {chunk_line(c)}" for c in shown]
        if len(older) > len(shown):
            lines.append(f"- ... and {len(older) - len(shown)} older chunks")
    lines.append(
        f"Everything folded is kept word for word. When you need exact text from before the "
        f"fold (file contents, error output, what the user said), call {READER_TOOL}: "
        "action=search with a regex or words, action=read with a chunk number and optionally "
        "a message id range, action=list for the chunk index."
    )
    return "\n".join(lines)


def task_section(todos: Sequence[TodoItem]) -> str:
    """The task list as code carries it through a fold: word for word, never summarized."""
    return (
        f"## Task list (kept by pleat as of the fold; {TODO_TOOL_NAME} replaces it)\n"
        + render_todos(todos)
    )


def goal_section(goal: str) -> str:
    """The session's goal as the user set it (/goal, --goal), word for word."""
    return f"## Goal (set by the user; kept by pleat word for word until they change it)\n{goal}"


def plan_section(plan: str) -> str:
    """The plan the user accepted (exit_plan_mode), word for word, never summarized."""
    return f"## Accepted plan (the user accepted it; kept by pleat word for word)\n{plan}"


def summary_message(
    *,
    summary: str,
    ledger: Ledger,
    current: ChunkInfo | None,
    previous: Sequence[ChunkInfo],
    request_budget_chars: int,
    method: str,
    todos: Sequence[TodoItem] | None = None,
    goal: str | None = None,
    plan: str | None = None,
) -> Message:
    """The user-role message at the head of the rebuilt history; its parts are kept in meta so
    the next compaction can update them (anchored summary, cumulative ledger) and the task list
    (None: none was ever written), the goal and the accepted plan outlive what set them."""
    header = "[pleat: the earlier conversation was folded to save context; this is its summary]"
    ledger_text = render_ledger(ledger, request_budget_chars=request_budget_chars)
    parts = [header, *([goal_section(goal)] if goal else []), summary.strip()]
    if plan:
        parts.append(plan_section(plan))
    if todos:
        parts.append(task_section(todos))
    if ledger_text:
        parts.append("## Recorded by pleat (from the folded messages)\n" + ledger_text)
    parts.append(archive_section(current, previous))
    meta = {
        "kind": "summary",
        "injected": True,
        "summary": summary.strip(),
        "ledger": ledger.to_dict(),
        "chunk": current.number if current is not None else None,
        "method": method,
    }
    if todos is not None:
        meta[SUMMARY_KEY] = [item.to_dict() for item in todos]
    if goal:
        meta[GOAL_KEY] = goal
    if plan:
        meta[PLAN_KEY] = plan
    return Message(role="user", content="\n\n".join(parts), meta=meta)


def rebuild(
    system: Message, summary: Message, tail: Sequence[Message], pulled_back: Sequence[Message]
) -> list[Message]:
    """history = system + summary + recent tail + pulled-back messages."""
    return [system, summary, *tail, *pulled_back]
