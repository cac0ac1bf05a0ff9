"""The TUI stopped in the middle of a turn, by SIGTERM or by its terminal closing (SIGHUP, as when
a window closes or ssh drops), as a person runs it (tmux): the turn is stopped cleanly, its
command killed, the journal whole, the session resumable without repairs."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agent.turn.notes import CANCELLED_TOOL_RESULT
from sessions.store import Session, list_sessions
from tests.support.invariants import assert_history_valid
from tests.support.mcp_support import (
    kill_if_alive,
    pid_running,
    slow_command,
    wait_gone,
    wait_until,
)
from tests.support.scripted_server import ScriptedServer, ToolCalls
from tests.support.tmux_pleat import TmuxPleat, tmux_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]


@pytest.mark.parametrize("how", ["sigterm", "terminal closed"])
def test_a_turn_stopped_by_a_signal_leaves_a_whole_session(
    server: ScriptedServer, workspace: Path, pleat_home: Path, how: str
) -> None:
    slow = slow_command()
    server.push(ToolCalls([("run_command", {"command": f"echo started; {slow}"})]))
    shell = 0
    with TmuxPleat(workspace, server, "--yes") as tui:
        try:
            tui.wait_for(lambda s: "Ask pleat" in s, "the first frame")
            tui.send("run the slow command")
            wait_until(lambda: pid_running(slow))
            shell = pid_running(slow) or 0
            pleat = int(tui._tmux("display", "-p", "-t", "pleat", "#{pane_pid}").strip())
            if how == "sigterm":
                os.kill(pleat, signal.SIGTERM)
            else:  # tmux closes the pane's terminal: SIGHUP
                tui._tmux("kill-session", "-t", "pleat")
            assert wait_gone(pleat), "pleat did not quit"
            assert wait_gone(shell), "the command outlived pleat"
        finally:
            if shell:
                kill_if_alive(shell)
    (listed,) = list_sessions(workspace)
    session, history, notes = Session.resume(listed.id)  # the lock is free
    try:
        assert notes == []  # nothing to repair: every record was written whole
        assert_history_valid(history)
        assert [m.role for m in history][1:] == ["user", "assistant", "tool"]
        assert history[-1].content == CANCELLED_TOOL_RESULT  # the open call got its answer
    finally:
        session.close()
