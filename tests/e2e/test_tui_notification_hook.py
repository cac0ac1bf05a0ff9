"""The Notification hook in the TUI: when a question waits (an approval) and when a turn ends, the
hooks run with Claude Code's payload, their matcher selecting the notification type; what one
says on exit 2 is shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.hooks.config import parse_hooks
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import asked, make_app, send, started, wait_for
from tui.screens.approval import ApprovalScreen
from tui.widgets.notice import Notice

# Slow (the whole TUI under Textual's pilot): left out of the fast set.
pytestmark = pytest.mark.slow


def payloads(log: Path) -> list[dict[str, Any]]:
    text = log.read_text() if log.exists() else ""
    return [json.loads(line) for line in text.splitlines()]


async def test_notification_hooks_run_for_a_question_and_a_finished_turn(
    server: ScriptedServer, workspace: Path
) -> None:
    log = workspace / "notified.jsonl"  # hooks run in the sandbox: they write in the workspace
    hooks = parse_hooks(
        {
            "Notification": [
                {"command": f"(cat; echo) >> {log}"},
                {"matcher": "idle_prompt", "command": "echo 'turn over' >&2; exit 2"},
            ]
        }
    )
    server.push(
        ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]), Text("wrote a.txt")
    )
    app = make_app(server, workspace, hooks=hooks)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await send(pilot, app, "write a.txt")
        await asked(pilot, app, ApprovalScreen, "the approval")
        await wait_for(pilot, lambda: len(payloads(log)) == 1, "the question's notification")
        await pilot.press("y")
        await wait_for(pilot, lambda: len(payloads(log)) == 2, "the turn's notification")
        shown = lambda: [n.text for n in app.query(Notice)]  # noqa: E731
        await wait_for(pilot, lambda: any("turn over" in n for n in shown()), "exit 2's stderr")
        assert app.session is not None
        session_id = app.session.id
    question, done = payloads(log)
    for payload in (question, done):
        assert payload["hook_event_name"] == "Notification" and payload["title"] == "pleat"
        assert payload["session_id"] == session_id and payload["cwd"] == str(workspace)
        assert payload["transcript_path"].endswith("journal.jsonl")
    assert question["notification_type"] == "permission_prompt"
    assert question["message"] == "pleat: approve write_file?"
    assert done["notification_type"] == "idle_prompt"
    assert done["message"] == "pleat: done: wrote a.txt"
