"""Fault matrix, SIGTERM and SIGHUP rows: `pleat -p` terminated mid-run, or its terminal closed,
exits cleanly; its session resumes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.config import Config
from agent.events import TurnDone
from agent.headless.run import EXIT_TERMINATED
from agent.permissions.policy import approve_all
from agent.turn.notes import CANCELLED_TOOL_RESULT
from sessions.store import Session, list_sessions
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.faults_harness import RECOVERED, turn
from tests.support.invariants import assert_history_valid
from tests.support.mcp_support import pid_running, slow_command
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (real processes signalled): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# Seconds allowed for things that take well under one (pleat starting up takes a few, litellm's
# import): a bound that keeps a broken build from hanging the suite, never a speed assertion.
GENEROUS_SECONDS = 60.0
# Interval of the bounded polls below.
POLL_SECONDS = 0.02


def pleat_args(server: ScriptedServer, workspace: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "tui.main",
        "--model", TEST_MODEL, "--api-base", server.base_url, "--api-key", TEST_API_KEY,
        "--cwd", str(workspace), "--yes", *extra,
    ]  # fmt: skip


def is_gone(pid: int) -> bool:
    """True when the process has exited (a zombie waiting for its parent counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + GENEROUS_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL_SECONDS)


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("moment", ["during-a-tool", "during-a-model-call"])
def test_a_stop_signal_exits_gracefully_and_the_session_resumes(
    server: ScriptedServer, workspace: Path, moment: str, sent: signal.Signals
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    pid_file = workspace / "shell.pid"
    slow = slow_command()
    release = threading.Event()

    def hang(body: dict[str, Any]) -> Text:
        release.wait(GENEROUS_SECONDS)  # a provider that takes its time
        return Text("too late")

    second = (
        ToolCalls([("run_command", {"command": f"echo started > {pid_file.name}; {slow}"})])
        if moment == "during-a-tool"
        else hang
    )
    server.push(ToolCalls([("read_file", {"path": "a.txt"})]), second)
    process = subprocess.Popen(
        pleat_args(server, workspace, "-p", "read a.txt, then the next step"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        if moment == "during-a-tool":
            wait_until(lambda: pid_running(slow), "the command")
            shell = pid_running(slow)
        else:
            wait_until(lambda: len(server.requests) == 2, "the second model call")
        assert process.poll() is None
        process.send_signal(sent)
        out, err = process.communicate(timeout=GENEROUS_SECONDS)
    finally:
        release.set()
        if process.poll() is None:
            process.kill()
    assert process.returncode == EXIT_TERMINATED, err
    session_id = list_sessions(workspace)[0].id
    lines = err.strip().splitlines()
    assert [line for line in lines if line.startswith("pleat:")] == [lines[-1]], err
    assert lines[-1] == (
        f"pleat: terminated ({sent.name}); session saved: pleat --resume {session_id}"
    )
    if moment == "during-a-tool":
        assert shell is not None
        wait_until(lambda: is_gone(shell), "the command's end")  # killed, not orphaned
    assert_resumes_cleanly(server, workspace, session_id, cancelled=moment == "during-a-tool")
    assert out == ""  # the model had said nothing yet


def assert_resumes_cleanly(
    server: ScriptedServer, workspace: Path, session_id: str, *, cancelled: bool
) -> None:
    """The lock is free, the journal holds every message: the session opens without repairs,
    with the completed step whole and, when a call was running, its "cancelled" result; and it
    carries on."""
    session, history, notes = Session.resume(session_id)
    assert notes == []
    assert_history_valid(history)
    roles = [m.role for m in history]
    assert roles[:4] == ["system", "user", "assistant", "tool"]
    assert "alpha" in (history[3].content or "")  # the completed step is all there
    if cancelled:  # the open call got its answer
        assert roles[4:] == ["assistant", "tool"] and history[5].content == CANCELLED_TOOL_RESULT
    else:  # nothing of the unanswered model call was shown, so nothing of it is kept
        assert roles[4:] == []
    # And the resumed session carries on.
    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY)
    agent = build_agent(config, workspace, approve_all, session=session, history=history)
    server.push(Text(RECOVERED))
    try:
        events = asyncio.run(turn(agent, "go on"))
    finally:
        session.close()
    assert isinstance(events[-1], TurnDone) and events[-1].text == RECOVERED
    assert_history_valid(agent.history)


# Starts a command as the session leader of `argv[1]`'s terminal (its stdin), as a login shell
# is: closing that terminal then sends it SIGHUP, as closing a window or dropping ssh does.
ON_ITS_OWN_TERMINAL = (
    "import fcntl, os, sys, termios; os.setsid(); fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


def drain(master: int) -> bool:
    """Read what the terminal shows so far (so pleat never waits on a full terminal); True."""
    with contextlib.suppress(BlockingIOError, OSError):
        while os.read(master, 65_536):
            pass
    return True


def test_a_closed_terminal_stops_the_run_as_sigterm_does(
    server: ScriptedServer, workspace: Path
) -> None:
    """The kernel's SIGHUP, with every write to the terminal failing after it: the run still
    stops cleanly, with SIGTERM's exit code, its command killed, its session whole."""
    (workspace / "a.txt").write_text("alpha\n")
    pid_file = workspace / "shell.pid"
    slow = slow_command()
    server.push(
        ToolCalls([("read_file", {"path": "a.txt"})]),
        ToolCalls([("run_command", {"command": f"echo started > {pid_file.name}; {slow}"})]),
    )
    master, terminal = pty.openpty()
    os.set_blocking(master, False)
    args = pleat_args(server, workspace, "-p", "read a.txt, then the next step")
    process = subprocess.Popen(
        [sys.executable, "-c", ON_ITS_OWN_TERMINAL, *args],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
    )
    os.close(terminal)
    try:
        wait_until(
            lambda: drain(master) and pid_running(slow),
            "the command",
        )
        shell = pid_running(slow)
        assert process.poll() is None
        os.close(master)  # the terminal goes away
        master = -1
        process.wait(timeout=GENEROUS_SECONDS)
    finally:
        if master >= 0:
            os.close(master)
        if process.poll() is None:
            process.kill()
    assert process.returncode == EXIT_TERMINATED
    assert shell is not None
    wait_until(lambda: is_gone(shell), "the command's end")
    session_id = list_sessions(workspace)[0].id
    assert_resumes_cleanly(server, workspace, session_id, cancelled=True)
