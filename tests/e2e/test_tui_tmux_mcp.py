"""The TUI as a person runs it (tmux) with an MCP server that does not exit when its stdin closes:
its stderr never reaches the screen, and it is gone after Ctrl+C twice, a SIGTERM to pleat, or
its terminal closing (SIGHUP)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.support.mcp_support import (
    alive,
    echo_table,
    kill_if_alive,
    read_pid,
    wait_gone,
    write_config,
)
from tests.support.scripted_server import ScriptedServer
from tests.support.tmux_pleat import TmuxPleat, tmux_available

# Times /mcp is asked before the server must show running (0.2 s apart: ample for a start).
ASKS = 100

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]


@pytest.mark.parametrize("how", ["ctrl-c twice", "sigterm", "terminal closed"])
def test_the_server_stops_with_the_tui(
    server: ScriptedServer, workspace: Path, pleat_home: Path, tmp_path: Path, how: str
) -> None:
    pid_file = workspace / "echo.pid"  # confined (the default): it writes in the workspace
    write_config(pleat_home, echo_table(pid_file=pid_file, linger=True))
    pid = 0
    with TmuxPleat(workspace, server) as tui:
        try:
            tui.wait_for(lambda s: "Ask pleat" in s, "the first frame")
            pid = read_pid(pid_file)
            for _ in range(ASKS):  # /mcp until it shows the server running
                tui.keys("/", "m", "c", "p", "Enter")
                screen = tui.wait_for(lambda s: "MCP servers (1)" in s, "/mcp")
                if "echo · running" in screen.rsplit("MCP servers (1)", 1)[1]:
                    break
                time.sleep(0.2)
            assert "echo · running" in screen
            assert "this line goes to stderr" not in screen.split("stderr, last lines:")[0]
            pleat = int(tui._tmux("display", "-p", "-t", "pleat", "#{pane_pid}").strip())
            if how == "sigterm":
                os.kill(pleat, signal.SIGTERM)
            elif how == "terminal closed":  # tmux closes the pane's terminal: SIGHUP
                tui._tmux("kill-session", "-t", "pleat")
            else:
                tui.keys("C-c")
                tui.keys("C-c")
            assert wait_gone(pleat), "pleat did not quit"
            assert not alive(pid) or wait_gone(pid), "the MCP server outlived pleat"
        finally:
            if pid:
                kill_if_alive(pid)
