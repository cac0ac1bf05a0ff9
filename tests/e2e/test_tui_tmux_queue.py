"""Type while it works, as a person would: pleat runs in a terminal (a private tmux server), the
first prompt's turn is held at a model call, a second prompt is typed meanwhile, and it reaches
the server in the same session, after the first turn's tool result."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, TEST_API_KEY, TEST_MODEL
from scripted_server import ScriptedServer, Text, ToolCalls

from sessions.journal import JOURNAL_NAME
from sessions.paths import session_dir
from sessions.store import list_sessions

pytestmark = [
    pytest.mark.slow,  # a real pleat process in a real terminal
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

# Seconds to wait for what the terminal or the server should show: far past litellm's import
# (about 4 s) and a turn on a loaded machine; a hang fails instead of stalling the suite.
WAIT_SECONDS = 90
# Seconds between two looks at the screen or the server.
POLL_SECONDS = 0.1
# The terminal's size: wide enough that a queued prompt's line is not cut.
COLUMNS, ROWS = 120, 40


class HeldModel:
    """Reads a.txt on the first call, which it answers only once the test lets it go (the turn
    is held while the person types); answers every later call."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.calls = 0

    def __call__(self, body: dict[str, Any]) -> Text | ToolCalls:
        self.calls += 1
        if self.calls == 1:
            self.go.wait(WAIT_SECONDS)
            return ToolCalls([("read_file", {"path": "a.txt"})])
        return Text("read both files")


class Terminal:
    """pleat in a tmux server of its own (its own socket: no other tmux is touched)."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check
        )

    def start(self, command: list[str], env: dict[str, str]) -> None:
        subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d", "-s", "pleat",
             "-x", str(COLUMNS), "-y", str(ROWS), shlex.join(command)],
            env=env, cwd=REPO_ROOT, check=True,
        )  # fmt: skip

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "pleat", check=False).stdout

    def type(self, text: str) -> None:
        """Type `text`, then press Enter."""
        self.tmux("send-keys", "-t", "pleat", "-l", text)
        self.tmux("send-keys", "-t", "pleat", "Enter")

    def running(self) -> bool:
        return self.tmux("has-session", "-t", "pleat", check=False).returncode == 0


def until(condition: Callable[[], object], what: str, screen: Terminal) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen.screen()}")
        time.sleep(POLL_SECONDS)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    screen = Terminal(f"pleat-test-{os.getpid()}-{time.monotonic_ns()}")
    try:
        yield screen
    finally:
        screen.tmux("kill-server", check=False)  # the test's own server only


def test_a_second_prompt_typed_while_the_first_runs_reaches_the_server(
    workspace: Path, terminal: Terminal
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    held = HeldModel()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "TMUX"}
    with ScriptedServer(fallback=held) as server:
        try:
            terminal.start(
                [sys.executable, "-m", "tui.main", "--model", TEST_MODEL,
                 "--api-base", server.base_url, "--api-key", TEST_API_KEY,
                 "--cwd", str(workspace)],
                env,
            )  # fmt: skip
            until(lambda: "Ask pleat" in terminal.screen(), "the prompt", terminal)
            terminal.type("read a.txt")
            until(lambda: len(server.requests) == 1, "the first model call", terminal)
            terminal.type("and b.txt too")
            until(lambda: "queued and b.txt too" in terminal.screen(), "the queued line", terminal)
        finally:
            held.go.set()
        until(lambda: "read both files" in terminal.screen(), "the answer", terminal)
        assert "queued and b.txt too" not in terminal.screen()
        terminal.tmux("send-keys", "-t", "pleat", "C-q")
        until(lambda: not terminal.running(), "pleat to quit", terminal)
    assert len(server.requests) == 2  # the second prompt did not wait for a turn of its own
    second = server.requests[1].messages
    assert {"role": "user", "content": "read a.txt"} in second  # the same conversation
    assert second[-2]["role"] == "tool" and "alpha" in second[-2]["content"]
    assert second[-1] == {"role": "user", "content": "and b.txt too"}
    sessions = list_sessions(workspace)
    assert len(sessions) == 1
    records = (session_dir(sessions[0].id) / JOURNAL_NAME).read_text().splitlines()
    prompts = [
        record["message"]["content"]
        for record in map(json.loads, records)
        if record["type"] == "message" and record["message"]["role"] == "user"
    ]
    assert prompts == ["read a.txt", "and b.txt too"]
