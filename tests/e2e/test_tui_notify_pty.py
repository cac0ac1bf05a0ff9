"""Notifications on a real terminal: pleat's TUI as a process on a raw pty (tmux swallows BEL), the
terminal's focus reports sent as a terminal sends them (CSI O on losing focus, CSI I on getting
it back). A turn that ends while the terminal has focus rings nothing; one that ends without it
rings the bell, or (notify = "osc9") sends an OSC 9 notification whose text holds no escape
code from the model."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.pleat_process import process_environment
from tests.support.scripted_server import ScriptedServer, Text

# Slow (pleat's TUI as a process, litellm's import in it).
pytestmark = pytest.mark.slow

# The terminal's size.
ROWS, COLUMNS = 40, 160
# Seconds to wait for what the terminal should show: pleat's start and litellm's first import
# on a loaded machine; a hang fails the test instead of stalling the suite.
GENEROUS_SECONDS = 90.0
# What a terminal sends when it loses and gets back focus (with focus reporting on, CSI ?1004h,
# which Textual turns on at start).
FOCUS_OUT, FOCUS_IN = b"\x1b[O", b"\x1b[I"
FOCUS_REPORTING = b"\x1b[?1004h"
# An OSC sequence (a title, a notification, a clipboard write), ended by BEL or ST: a BEL that
# ends one is not a bell.
OSC = re.compile(rb"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


class Terminal:
    """A pty whose other end runs pleat's TUI; what it writes is gathered by a thread."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.output = bytearray()
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65_536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.output += data

    def since(self, mark: int) -> bytes:
        with self.lock:
            return bytes(self.output[mark:])

    def mark(self) -> int:
        with self.lock:
            return len(self.output)

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    def type(self, text: str) -> None:
        for character in text:  # a key at a time, as a person types
            self.send(character.encode())
            time.sleep(0.02)

    def wait_for(self, condition: Callable[[], object], what: str) -> None:
        deadline = time.monotonic() + GENEROUS_SECONDS
        while not condition():
            if time.monotonic() > deadline:
                tail = self.since(max(0, self.mark() - 2_000))
                raise AssertionError(f"timed out waiting for {what}; the terminal shows {tail!r}")
            time.sleep(0.05)


def turn_ended(screen: Terminal, mark: int, answer: bytes) -> Callable[[], bool]:
    """Whether, since `mark`, the turn's `answer` has been drawn and the status bar said idle
    after it (a frame is written top down: a reply drawn in the turn's last frame comes before
    the status bar's idle). Not a mark taken after the request: on a busy machine the whole
    turn can be drawn before the test's next look."""

    def ended() -> bool:
        shown = screen.since(mark)
        at = shown.find(answer)
        return at >= 0 and b"idle" in shown[at:]

    return ended


def bells(data: bytes) -> int:
    """BEL characters that ring (those ending an OSC sequence do not)."""
    return OSC.sub(b"", data).count(b"\x07")


@contextmanager
def pleat_on_a_pty(
    workspace: Path, server: ScriptedServer, env: dict[str, str] | None = None
) -> Iterator[Terminal]:
    master, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    command = [
        sys.executable, "-m", "tui.main",
        "--model", TEST_MODEL,
        "--api-base", server.base_url,
        "--api-key", TEST_API_KEY,
        "--cwd", str(workspace),
    ]  # fmt: skip
    environment = process_environment({"TERM": "xterm-256color", **(env or {})})
    for name in ("COLUMNS", "LINES", "TMUX"):
        environment.pop(name, None)
    process = subprocess.Popen(
        command,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=environment,
        start_new_session=True,
    )
    os.close(terminal)
    screen = Terminal(master)
    try:
        screen.wait_for(lambda: FOCUS_REPORTING in screen.since(0), "focus reporting")
        screen.wait_for(lambda: b"idle" in screen.since(0), "the session")
        yield screen
    finally:
        process.kill()
        process.wait(timeout=GENEROUS_SECONDS)
        os.close(master)


def held_reply(text: str) -> tuple[threading.Event, Callable[[dict[str, Any]], Text]]:
    """A reply the server sends only once the returned event is set."""
    release = threading.Event()

    def reply(_: dict[str, Any]) -> Text:
        release.wait(GENEROUS_SECONDS)
        return Text(text)

    return release, reply


def ask_away(screen: Terminal, server: ScriptedServer, prompt: str, answer: str) -> int:
    """Send `prompt`; once its request is at the server, the terminal loses focus (a key
    pressed would give focus back), then the reply comes. The mark before the focus left."""
    release, reply = held_reply(answer)
    server.push(reply)
    requests = len(server.requests)
    screen.type(prompt + "\r")
    screen.wait_for(lambda: len(server.requests) > requests, "the request")
    mark = screen.mark()
    screen.send(FOCUS_OUT)
    screen.wait_for(lambda: screen.mark() > mark, "the blur redrawn")  # the input loses focus
    release.set()
    return mark


def test_a_turn_rings_the_bell_only_when_the_terminal_has_lost_focus(
    server: ScriptedServer, workspace: Path
) -> None:
    with pleat_on_a_pty(workspace, server) as screen:
        server.push(Text("first-answer"))
        before = screen.mark()
        screen.type("hello\r")
        screen.wait_for(turn_ended(screen, before, b"first-answer"), "the first turn's end")
        assert bells(screen.since(before)) == 0  # focused: nothing rings

        mark = ask_away(screen, server, "again", "second-answer")
        screen.wait_for(lambda: bells(screen.since(mark)) == 1, "the bell")

        screen.send(FOCUS_IN)  # back: the next turn rings nothing
        server.push(Text("third-answer"))
        back = screen.mark()
        screen.type("once more\r")
        screen.wait_for(turn_ended(screen, back, b"third-answer"), "the third turn's end")
        assert bells(screen.since(back)) == 0


def test_osc9_sends_a_notification_without_the_models_escape_codes(
    server: ScriptedServer, workspace: Path
) -> None:
    with pleat_on_a_pty(workspace, server, {"PLEAT_NOTIFY": "osc9"}) as screen:
        mark = ask_away(screen, server, "hello", "done\x1b]0;pwned\x07 and \x1b[31mred")
        screen.wait_for(lambda: b"\x1b]9;" in screen.since(mark), "the notification")
        sent = re.search(rb"\x1b\]9;([^\x07]*)\x07", screen.since(mark))
        assert sent is not None
        text = sent.group(1)
        assert text.startswith(b"pleat: done: done")
        assert b"\x1b" not in text and b"pwned" in text  # shown as text, never sent as a code
        assert bells(screen.since(mark)) == 0  # a notification, not the bell
