"""The task list end to end, headless: the model writes it with todo_write, two folds happen with
no new call in between, and the list stands word for word in the second summary message (as the
server received it and as the journal holds it); `--continue` resumes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessions.journal import JOURNAL_NAME
from sessions.paths import session_dir
from sessions.store import latest_session
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tools.todo_list import TODO_TOOL_NAME

# Slow: pleat's headless runs, two folds.
pytestmark = pytest.mark.slow

INSTRUCTION_MARK = "[pleat: context compaction"
PLAN = [
    {"content": "Read the parser and find the off-by-one", "status": "done"},
    {"content": "Fix `parse_range` (end is inclusive)", "status": "in_progress"},
    {"content": "Add a regression test for ranges ending at 0", "status": "pending"},
]
# What the task list looks like in a summary message: one line per task, its status in words.
PLAN_LINES = [f"- [{item['status']}] {item['content']}" for item in PLAN]
# A small kept tail, so that each /compact folds what came before it.
SMALL_TAIL = ("--compaction", "tail_messages=2")


class Model:
    """Writes the plan on the first request, answers the others, and summarizes when asked
    with a summary that never mentions the tasks (so what carries them is pleat's code)."""

    def __init__(self) -> None:
        self.planned = False
        self.summaries = 0

    def __call__(self, body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if INSTRUCTION_MARK in str(last.get("content")):
            self.summaries += 1
            return Text(
                f"<topics>parser work {self.summaries}</topics>"
                f"<summary>We are working on the parser (fold {self.summaries}).</summary>"
            )
        if not self.planned:
            self.planned = True
            return ToolCalls([(TODO_TOOL_NAME, {"todos": PLAN})])
        return Text(f"answer to: {str(last.get('content'))[-40:]}")


def journal_records(session_id: str) -> list[dict[str, Any]]:
    lines = (session_dir(session_id) / JOURNAL_NAME).read_text().splitlines()
    return [json.loads(line) for line in lines]


def user_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content")) for m in messages if m["role"] == "user")


def test_the_task_list_survives_two_folds_and_a_resume(workspace: Path) -> None:
    model = Model()
    with ScriptedServer(fallback=model) as server:
        planned = run_pleat(workspace, server, *SMALL_TAIL, "-p", "fix the range parser")
        between = run_pleat(workspace, server, *SMALL_TAIL, "--continue", "-p", "go on")
        first = run_pleat(workspace, server, *SMALL_TAIL, "--continue", "-p", "/compact")
        more = run_pleat(workspace, server, *SMALL_TAIL, "--continue", "-p", "and then?")
        second = run_pleat(workspace, server, *SMALL_TAIL, "--continue", "-p", "/compact")
        asked = len(server.requests)
        resumed = run_pleat(workspace, server, *SMALL_TAIL, "--continue", "-p", "what is left?")
    for done in (planned, between, first, more, second, resumed):
        assert done.returncode == 0, done.stderr
    # The tool line, as other tools have theirs.
    assert "• todo_write(3 tasks: 1 done, 1 in progress, 1 pending)" in planned.stderr
    assert first.stdout.startswith("folded") and second.stdout.startswith("folded")
    assert model.summaries == 2

    session_id = latest_session(workspace)
    assert session_id is not None
    folds = [r for r in journal_records(session_id) if r["type"] == "compaction"]
    assert len(folds) == 2
    # The second fold's history: the call that wrote the list is folded away, so the list it
    # carries came from the first summary, through code.
    history = folds[-1]["history"]
    assert not any(
        call["function"]["name"] == TODO_TOOL_NAME
        for message in history
        for call in message.get("tool_calls") or ()
    )
    summary = history[1]
    assert summary["meta"]["kind"] == "summary"
    assert summary["meta"]["todos"] == PLAN
    assert "\n".join(PLAN_LINES) in summary["content"]
    assert "(fold 2)" in summary["content"]

    # The resumed session's request (after the second fold) holds the list word for word.
    request = server.requests[asked].messages
    assert "## Task list" in user_text(request)
    assert "\n".join(PLAN_LINES) in user_text(request)
    assert request[-1]["content"].endswith("what is left?")
