"""Background commands in the TUI as a person runs it (tmux): none outlives pleat, however it
quits (Ctrl+Q, SIGTERM, its terminal closing: SIGHUP); Ctrl+B sends the running command to the
background, where the model reads and stops it, and /shells lists it with its output file."""

from __future__ import annotations

import os
import signal
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.hook_support import tool_results
from tests.support.mcp_support import alive, kill_if_alive, started_pids, wait_gone, wait_until
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tmux_pleat import TmuxPleat, tmux_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

# The command, its sleep with a number of its own (the test finds its processes by it: in the
# sandbox's PID namespace `$$` names another pid), and a file once it has started.
TOKEN = f"30.{uuid.uuid4().int % 10**9:09d}"
SLEEPER = f"echo before; sleep {TOKEN} & echo started > sleep.pid; wait; echo done"
# Presses of Ctrl+B before the test gives up: one is enough unless the key comes before pleat
# has taken the command as its foreground one.
CTRL_B_TRIES = 5


def when_file(path: Path, reply: ToolCalls | Text) -> Any:
    """A scripted step sent once `path` exists (the command got that far)."""

    def respond(_: dict[str, Any]) -> ToolCalls | Text:
        wait_until(lambda: path.exists() and path.read_text().strip())
        return reply

    return respond


@pytest.mark.parametrize("how", ["ctrl+q", "sigterm", "terminal closed"])
def test_no_background_command_outlives_the_tui(
    server: ScriptedServer, workspace: Path, how: str
) -> None:
    server.push(
        ToolCalls([("run_command", {"command": SLEEPER, "background": True})]),
        when_file(workspace / "sleep.pid", Text("it runs in the background")),
    )
    pids: list[int] = []
    with TmuxPleat(workspace, server, "--yes") as tui:
        try:
            tui.wait_for(lambda s: "Ask pleat" in s, "the first frame")
            tui.send("start the sleeper")
            tui.wait_for(lambda s: "it runs in the background" in s, "the turn's end")
            pids = started_pids(workspace / "sleep.pid", TOKEN)
            assert all(alive(pid) for pid in pids)  # the turn ended; the command runs on
            pleat = int(tui._tmux("display", "-p", "-t", "pleat", "#{pane_pid}").strip())
            if how == "sigterm":
                os.kill(pleat, signal.SIGTERM)
            elif how == "terminal closed":  # tmux closes the pane's terminal: SIGHUP
                tui._tmux("kill-session", "-t", "pleat")
            else:
                tui.keys("C-q")
            assert wait_gone(pleat), "pleat did not quit"
            assert all(wait_gone(pid) for pid in pids), "a background command outlived pleat"
        finally:
            for pid in pids:
                kill_if_alive(pid)


def test_ctrl_b_sends_the_running_command_to_the_background(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(
        ToolCalls([("run_command", {"command": SLEEPER})]),
        ToolCalls([("command_output", {"id": "bg-1"})]),
        ToolCalls([("command_stop", {"id": "bg-1"})]),
        Text("stopped the sleeper"),
    )
    pids: list[int] = []
    with TmuxPleat(workspace, server, "--yes") as tui:
        try:
            tui.wait_for(lambda s: "Ask pleat" in s, "the first frame")
            tui.send("run the sleeper")
            pids = started_pids(workspace / "sleep.pid", TOKEN)
            # As a person presses it (tmux's send-keys skips its prefix). The command's pid file
            # can be written before pleat has taken the process as its foreground command (a
            # busy machine): then the key says so, and a person presses it again.
            for _ in range(CTRL_B_TRIES):
                tui.keys("C-b")
                said = tui.wait_for(
                    lambda s: "went to the background" in s or "No command is running" in s,
                    "Ctrl+B's answer",
                )
                if "went to the background" in said:
                    break
                tui.wait_for(lambda s: "No command is running" not in s, "the answer to go")
            tui.wait_for(lambda s: "stopped the sleeper" in s, "the turn's end")
            sent, read, stopped = (tool_results(server, n)[-1] for n in (1, 2, 3))
            assert sent.startswith("before\n") and "background as bg-1" in sent
            assert read.endswith("bg-1: still running")
            assert stopped.startswith("bg-1 stopped")
            assert all(wait_gone(pid) for pid in pids)
            tui.send("/shells")
            screen = tui.wait_for(lambda s: "Background commands" in s, "/shells")
            listing = screen.split("Background commands", 1)[1]
            assert "bg-1  stopped (exit code -9)" in listing and "output: " in listing
            assert "running-" in listing  # its output file, in the session's outputs
        finally:
            for pid in pids:
                kill_if_alive(pid)
