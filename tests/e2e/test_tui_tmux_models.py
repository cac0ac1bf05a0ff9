"""`/model NAME` with no model at start, as a person does it: pleat in a terminal (a tmux server
of the test's own), keys typed, the screen read; the prompt after it reaches the scripted server."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import REPO_ROOT, TEST_API_KEY, TEST_MODEL
from scripted_server import ScriptedServer, Text

pytestmark = [
    pytest.mark.slow,  # a real terminal and a real process (litellm's import takes seconds)
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

# Seconds to wait for something to show on the screen: room for litellm's import (about 4 s)
# on a loaded machine; a hang fails the test instead of stalling the suite.
SCREEN_TIMEOUT_SECONDS = 90.0
# Seconds between two reads of the screen.
POLL_SECONDS = 0.2
# The terminal's size: wide enough that the lines the test looks for are not wrapped.
COLUMNS, ROWS = 140, 45
ANSWER = "hello from the scripted server"


class Terminal:
    """One tmux server on a private socket running one command in a pane."""

    def __init__(self) -> None:
        self.socket = f"pleat-test-models-{uuid.uuid4().hex[:12]}"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, command: str) -> None:
        self.tmux("new-session", "-d", "-s", "pleat", "-x", str(COLUMNS), "-y", str(ROWS), command)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "pleat", "-l", text)
        self.tmux("send-keys", "-t", "pleat", "Enter")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "pleat")

    def wait_for(self, condition: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + SCREEN_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            screen = self.screen()
            if condition(screen):
                return screen
            time.sleep(POLL_SECONDS)
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    try:
        yield term
    finally:
        term.close()


def test_model_name_works_with_no_model_at_start(
    terminal: Terminal, workspace: Path, pleat_home: Path
) -> None:
    # The server lists no model (GET /v1/models is empty), so nothing is found at start either.
    with ScriptedServer(api_key=TEST_API_KEY) as server:
        server.fallback = lambda body: Text(f"{ANSWER} to {body['model']}")
        environment = {
            "PLEAT_HOME": str(pleat_home),
            "PLEAT_API_BASE": server.base_url,
            "PLEAT_API_KEY": TEST_API_KEY,
            "PLEAT_LOCAL_MODEL_SERVERS": "",  # discovery asks nothing else
            "PYTHONPATH": str(REPO_ROOT),
        }
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in environment.items())
        # COLUMNS and LINES (set by pytest) would fix the UI at their size, not the terminal's.
        unset = "-u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u PLEAT_MODEL -u COLUMNS -u LINES"
        terminal.start(
            f"cd {shlex.quote(str(workspace))} && exec env {unset} {assignments} "
            f"{shlex.quote(sys.executable)} -m tui.main"
        )
        terminal.wait_for(lambda s: "No model is configured." in s, "the configuration help")
        assert server.listings >= 1  # the configured server was asked, and listed nothing
        terminal.type(f"/model {TEST_MODEL}")
        terminal.wait_for(lambda s: f"model: {TEST_MODEL} (a new session" in s, "the session")
        terminal.type("hello there")
        screen = terminal.wait_for(lambda s: f"{ANSWER} to {TEST_MODEL}" in s, "the answer")
        assert f"{TEST_MODEL} ·" in screen  # the status bar names the model
    assert [r.body["model"] for r in server.requests] == [TEST_MODEL]
    assert server.requests[0].messages[-1]["content"] == "hello there"
