"""MCP servers stop with pleat: after a headless run, on SIGTERM, SIGHUP and Ctrl+C (SIGINT) in the
middle of a call; no server process outlives it, even one that does not exit when its stdin
closes (it is killed). Real processes, real pids (the run that ends on its own calls the entry
point in process; its server is a real process all the same)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from agent.headless.exit_codes import EXIT_INTERRUPTED, EXIT_TERMINATED
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.mcp_support import (
    alive,
    echo_table,
    kill_if_alive,
    read_pid,
    wait_gone,
    wait_until,
    write_config,
)
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

pytestmark = pytest.mark.slow

# Seconds a run may take before the test gives up on it.
GENEROUS_SECONDS = 120


def test_the_server_is_gone_when_the_run_ends(
    server: ScriptedServer, workspace: Path, pleat_home: Path, tmp_path: Path
) -> None:
    pid_file = workspace / "echo.pid"  # confined (the default): it writes in the workspace
    write_config(pleat_home, echo_table(pid_file=pid_file, linger=True))
    server.push(ToolCalls([("mcp__echo__echo", {"text": "x"})]), Text("done"))
    done = run_pleat(workspace, server, "-p", "go")
    assert done.returncode == 0, done.stderr
    pid = read_pid(pid_file)
    try:
        assert wait_gone(pid), "the MCP server outlived pleat"
    finally:
        kill_if_alive(pid)


@pytest.mark.parametrize(
    ("sent", "code"),
    [
        (signal.SIGTERM, EXIT_TERMINATED),
        (signal.SIGHUP, EXIT_TERMINATED),  # the terminal closed: as SIGTERM
        (signal.SIGINT, EXIT_INTERRUPTED),
    ],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)
def test_the_server_is_gone_when_pleat_is_stopped_mid_call(
    server: ScriptedServer,
    workspace: Path,
    pleat_home: Path,
    tmp_path: Path,
    sent: signal.Signals,
    code: int,
) -> None:
    pid_file = workspace / "echo.pid"  # confined (the default): it writes in the workspace
    write_config(pleat_home, echo_table(pid_file=pid_file, linger=True))
    server.push(ToolCalls([("mcp__echo__nap", {"seconds": 60})]), Text("too late"))
    process = subprocess.Popen(
        [
            sys.executable, "-m", "tui.main", "--model", TEST_MODEL,
            "--api-base", server.base_url, "--api-key", TEST_API_KEY,
            "--cwd", str(workspace), "--yes", "-p", "nap",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    pid = 0
    try:
        pid = read_pid(pid_file)
        wait_until(Path(f"{pid_file}.nap").exists)  # the call is running in the server
        assert alive(pid) and process.poll() is None
        process.send_signal(sent)
        _, err = process.communicate(timeout=GENEROUS_SECONDS)
        assert process.returncode == code, err
        assert wait_gone(pid), "the MCP server outlived pleat"
    finally:
        if process.poll() is None:
            process.kill()
        if pid:
            kill_if_alive(pid)
