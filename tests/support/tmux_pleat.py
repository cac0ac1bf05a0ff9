"""pleat's terminal UI in a private tmux server, driven as a person would: keys in, screen out."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from tests.support.constants import REPO_ROOT, TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer

# The terminal's size: wide enough that the status line (model, session id, a temporary
# workspace path, state, mode, meter, cache, fold) is never cut.
COLUMNS, ROWS = 220, 50
# Seconds to wait for the screen to show something: room for pleat's start and litellm's first
# import (about 4 s) on a loaded machine; a hang fails the test instead of stalling the suite.
SCREEN_TIMEOUT_SECONDS = 60
# Seconds between two reads of the screen while waiting.
POLL_SECONDS = 0.1
# Seconds before a key that answered no question is pressed again: longer than a question
# ignores keys for (tui/screens/question.py's ARMING_SECONDS, 0.4 s).
ANSWER_PAUSE_SECONDS = 1.0


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


class TmuxPleat:
    """`pleat` (the TUI) running in a private tmux server (its own socket: no other tmux is
    touched) against the scripted server. Use as a context manager: the server is killed at
    the end."""

    def __init__(
        self,
        workspace: Path,
        server: ScriptedServer,
        *args: str,
        model: str | None = TEST_MODEL,
        env: dict[str, str] | None = None,
    ) -> None:
        """`pleat ARGS` in `workspace` against `server` (its api_base and key), with `model`
        (None: no --model, as a first start without one) and `env` added to the environment."""
        self.socket = f"pleat-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.command = [sys.executable, "-m", "tui.main"]
        if model is not None:
            self.command += ["--model", model]
        self.command += [
            "--api-base", server.base_url,
            "--api-key", TEST_API_KEY,
            "--cwd", str(workspace),
            *args,
        ]  # fmt: skip
        self.extra_env = env or {}

    def __enter__(self) -> TmuxPleat:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env.pop("TMUX", None)  # a test run from inside tmux still starts its own server
        for name in ("COLUMNS", "LINES"):  # set by pytest's workers: they would fix the size
            env.pop(name, None)
        env["PYTHONPATH"] = str(REPO_ROOT)  # this checkout's pleat, whatever the cwd
        env.update(self.extra_env)
        self._tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", "pleat",
            "-x", str(COLUMNS), "-y", str(ROWS), "-c", str(REPO_ROOT),
            "--", *self.command,
            env=env,
        )  # fmt: skip
        return self

    def __exit__(self, *_: object) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=SCREEN_TIMEOUT_SECONDS,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def keys(self, *keys: str) -> None:
        """Press keys by tmux's names (Enter, BTab for Shift+Tab, y ...)."""
        self._tmux("send-keys", "-t", "pleat", *keys)

    def answer(self, key: str, question: str) -> None:
        """Answer the question whose screen shows `question` with `key`, as a person does: a
        question ignores keys for its first moment on screen (tui/screens/question.py), so
        the key is pressed again, after a pause longer than that, until the question is gone."""
        deadline = time.monotonic() + SCREEN_TIMEOUT_SECONDS
        while question in self.screen():
            if time.monotonic() > deadline:
                raise AssertionError(f"the question stayed; the screen:\n{self.screen()}")
            self.keys(key)
            time.sleep(ANSWER_PAUSE_SECONDS)

    def type(self, text: str) -> None:
        """Type text literally (no key names)."""
        self._tmux("send-keys", "-t", "pleat", "-l", text)

    def send(self, text: str) -> None:
        """Type a prompt and press Enter."""
        self.type(text)
        self.keys("Enter")

    def running(self) -> bool:
        """pleat has not quit (its tmux session is still there)."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, "has-session", "-t", "pleat"], capture_output=True
        )
        return done.returncode == 0

    def screen(self) -> str:
        """What the terminal shows ("" once pleat has quit and its tmux server with it)."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "pleat"],
            capture_output=True,
            text=True,
            timeout=SCREEN_TIMEOUT_SECONDS,
        )
        return done.stdout if done.returncode == 0 else ""

    def status_line(self) -> str:
        """The status bar: the line that names the model."""
        lines = [line for line in self.screen().splitlines() if TEST_MODEL in line]
        return lines[-1] if lines else ""

    def wait_for(self, condition: Callable[[str], bool], what: str) -> str:
        """Read the screen until `condition(screen)` holds; returns that screen."""
        deadline = time.monotonic() + SCREEN_TIMEOUT_SECONDS
        while True:
            screen = self.screen()
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")
            time.sleep(POLL_SECONDS)
