"""The task list pinned above the prompt: shown when todo_write writes it, updated by the next
call, hidden in a new session, and back when a folded session is resumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import (
    command,
    exchange,
    make_app,
    model,
    small_policy,
    started,
    wait_for,
)
from tests.support.tui_support import work_finished as finished
from tools.todo_list import TODO_TOOL_NAME, TodoItem
from tui.app import PleatApp
from tui.widgets.task_list import TaskList

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

PLAN = [
    {"content": "Read the parser", "status": "done"},
    {"content": "Fix \x1b[31mparse_range\x1b[0m", "status": "in_progress"},
    {"content": "Add a regression test", "status": "pending"},
]
FINISHED = [{**item, "status": "done"} for item in PLAN]


def tasks(app: PleatApp) -> TaskList:
    return app.query_one(TaskList)


def lines(app: PleatApp) -> list[str]:
    return str(tasks(app).render()).splitlines()


async def test_the_task_list_is_pinned_and_follows_the_session(
    server: ScriptedServer, workspace: Path
) -> None:
    server.fallback = model(
        [
            ToolCalls([(TODO_TOOL_NAME, {"todos": PLAN})]),
            Text("planned"),
            Text("working on it " * 20),
            Text("still working " * 20),
            ToolCalls([(TODO_TOOL_NAME, {"todos": FINISHED})]),
            Text("all done"),
        ]
    )
    # A small window: folds are quick to cause.
    app = make_app(server, workspace, compaction=small_policy(context_window=8_192))
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot, app)
        assert not tasks(app).display  # no list yet: nothing pinned
        await exchange(pilot, app, "fix the range parser")
        assert tasks(app).display
        assert tasks(app).items == [
            TodoItem("Read the parser", "done"),
            TodoItem("Fix \x1b[31mparse_range\x1b[0m", "in_progress"),
            TodoItem("Add a regression test", "pending"),
        ]
        assert lines(app) == [
            "Tasks 1/3 done",
            "✓ Read the parser",
            "▶ Fix \\x1b[31mparse_range\\x1b[0m",  # the escape shown, never sent to the terminal
            "○ Add a regression test",
        ]
        session_id = app.session.id if app.session else ""

        # Folded away: the call that wrote the list leaves the live history, the list stays.
        await exchange(pilot, app, "go on")
        await exchange(pilot, app, "and on")
        await command(pilot, app, "/compact")
        await wait_for(pilot, lambda: finished(app) and app.work_kind == "compact", "the fold")
        assert app.agent is not None
        assert not any(
            call.name == TODO_TOOL_NAME for m in app.agent.history for call in m.tool_calls
        )
        assert lines(app)[0] == "Tasks 1/3 done"

        await command(pilot, app, "/new")
        await wait_for(pilot, lambda: app.session and app.session.id != session_id, "/new")
        await wait_for(pilot, lambda: not tasks(app).display, "the list to go with the session")

        await command(pilot, app, f"/resume {session_id}")
        await wait_for(pilot, lambda: tasks(app).display, "the list back with the session")
        assert lines(app)[0] == "Tasks 1/3 done"  # from the summary message, after the fold

        await exchange(pilot, app, "finish it")
        assert lines(app)[0] == "Tasks 3/3 done"
        assert all(line.startswith("✓") for line in lines(app)[1:])
