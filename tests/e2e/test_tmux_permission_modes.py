"""Permission modes in a real terminal (tmux), as a person uses them: Shift+Tab shows each mode
in the status bar; plan mode refuses a write; an accepted plan switches to accept-edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tmux_pleat import TmuxPleat, tmux_available

# Slow (pleat as a process in a terminal): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

PLAN = "## Plan\n1. Write a.txt with a greeting."


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def test_shift_tab_plan_mode_and_an_accepted_plan(server: ScriptedServer, workspace: Path) -> None:
    server.push(
        ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]),
        ToolCalls([("exit_plan_mode", {"plan": PLAN})]),
        ToolCalls([("write_file", {"path": "a.txt", "content": "hello"})]),
        Text("Greeting written."),
    )
    with TmuxPleat(workspace, server) as tui:
        tui.wait_for(lambda _: " · idle · ask mode" in tui.status_line(), "pleat to start")
        # Shift+Tab through every mode and back, each shown in the status bar with a notice.
        for mode in ("accept-edits", "plan", "full-auto", "ask"):
            tui.keys("BTab")
            tui.wait_for(lambda _, m=mode: f" · {m} mode" in tui.status_line(), f"{mode} shown")
        screen = tui.screen()
        for mode in ("accept-edits", "plan", "full-auto"):
            assert f"{mode} mode: " in screen  # the notice of each change
        tui.keys("BTab", "BTab")
        tui.wait_for(lambda _: " · plan mode" in tui.status_line(), "plan mode")

        tui.type("write a greeting to a.txt")
        tui.keys("Enter")
        # One frame with the review and the refused call under it (on a busy machine a frame
        # read mid-redraw may show neither: the next one does).
        screen = tui.wait_for(
            lambda s: "Accept: switch to accept-edits (y)" in s and "write_file" in s,
            "the plan review over the refused call",
        )
        assert "✗ write_file" in screen  # refused without asking ...
        assert not (workspace / "a.txt").exists()  # ... and not written
        assert "Write a.txt with a greeting." in screen  # the plan, shown

        tui.answer("y", "Accept: switch to accept-edits (y)")
        tui.wait_for(lambda s: "Greeting written." in s, "the end of the turn")
        assert " · accept-edits mode" in tui.status_line()
        assert "✓ write_file" in tui.screen()  # accept-edits: the write ran without asking
    assert (workspace / "a.txt").read_text() == "hello"
    refusal = tool_results(server, 1)[-1]
    assert refusal.startswith("refused: pleat is in plan mode") and "write_file" in refusal
    assert tool_results(server, 2)[-1].startswith("The user accepted the plan")
