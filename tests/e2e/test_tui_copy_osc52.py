"""/copy as a terminal sees it: pleat's TUI runs as a process on a pseudo-terminal of the test's
own (tmux keeps OSC 52 to itself, so a raw pty is read instead), a prompt is typed, its answer
shown, `/copy` typed, and the terminal receives the answer as an OSC 52 clipboard write."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sessions.journal import JOURNAL_NAME
from sessions.paths import data_home
from tests.support.pleat_process import PLEAT, headless_args, process_environment
from tests.support.scripted_server import ScriptedServer, Text

# Slow: a real pleat process on a real terminal (litellm's import takes seconds).
pytestmark = pytest.mark.slow

# The terminal's size: big enough for the conversation and the status line.
COLUMNS, ROWS = 160, 40
# Seconds to wait for the terminal to show something: pleat's start and litellm's import on a
# loaded machine; a hang fails the test instead of stalling the suite.
SCREEN_TIMEOUT_SECONDS = 90
# Seconds between two reads of the terminal while waiting.
POLL_SECONDS = 0.05
# A new process on the pty as its controlling terminal (what a login shell gets).
ON_ITS_OWN_TERMINAL = (
    "import fcntl, os, sys, termios; os.setsid(); fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)
ANSWER = "the answer to copy\nwith a second line"


class PtyPleat:
    """pleat's TUI on a pty; `shown` holds every byte it wrote to the terminal."""

    def __init__(self, args: list[str]) -> None:
        self.master, terminal = pty.openpty()
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        os.set_blocking(self.master, False)
        env = process_environment({"TERM": "xterm-256color"})
        for name in ("COLUMNS", "LINES"):
            env.pop(name, None)
        self.process = subprocess.Popen(
            [sys.executable, "-c", ON_ITS_OWN_TERMINAL, *PLEAT, *args],
            stdin=terminal,
            stdout=terminal,
            stderr=terminal,
            env=env,
        )
        os.close(terminal)
        self.shown = b""

    def read(self) -> bytes:
        with contextlib.suppress(BlockingIOError, OSError):
            while chunk := os.read(self.master, 65_536):
                self.shown += chunk
        return self.shown

    def wait_for(self, condition: Callable[[bytes], bool], what: str) -> None:
        deadline = time.monotonic() + SCREEN_TIMEOUT_SECONDS
        while not condition(self.read()):
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(POLL_SECONDS)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def answer_journaled() -> bool:
    """The session's journal holds the answer as an assistant message."""
    for journal in (data_home() / "sessions").glob(f"*/{JOURNAL_NAME}"):
        for line in journal.read_text().splitlines():
            if not line.startswith('{"type":"message"'):
                continue
            with contextlib.suppress(ValueError):  # a line still being written
                if json.loads(line)["message"].get("content") == ANSWER:
                    return True
    return False


def test_copy_writes_the_last_answer_with_osc52(server: ScriptedServer, workspace: Path) -> None:
    server.fallback = lambda body: Text(ANSWER)
    tui = PtyPleat(headless_args(workspace, server, yes=False))
    try:
        tui.wait_for(lambda shown: b"Ask pleat" in shown, "the prompt")
        tui.type("say something\r")
        tui.wait_for(lambda shown: b"with a second line" in shown, "the answer")
        # The reply is in the conversation (journaled after it joins the history), not only
        # streamed to the screen.
        tui.wait_for(lambda _: answer_journaled(), "the answer in the session")
        written = b"\x1b]52;c;" + base64.b64encode(ANSWER.encode()) + b"\x07"
        assert written not in tui.shown
        tui.type("/copy\r")
        tui.wait_for(lambda shown: written in shown, "the OSC 52 clipboard write")
        tui.wait_for(lambda shown: b"copied the last answer" in shown, "the notice")
    finally:
        tui.close()
    assert len(server.requests) == 1  # /copy asked the model nothing
