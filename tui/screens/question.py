"""Questions that open unasked take keys only once the typing has stopped for a moment."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from textual.screen import ModalScreen, Screen

from tui.screens.styles import SCREENS_CSS

# Seconds without a key a question (approve a call, accept a plan, run a project's MCP servers,
# overwrite files changed since) waits for after it opens before it takes keys; each key in that
# time is dropped and starts the wait again. It opens while the user may be typing the next
# prompt: without this, a `y`, `a`, `n` or Enter meant for the prompt answers a question nobody
# read (users of Claude Code and Codex CLI report exactly that). A typist's keys come every 0.1
# to 0.3 s, so 0.4 s of quiet means they stopped, and it is shorter than anyone reads a question.
ARMING_SECONDS = 0.4
# Keys that keep working while a question arms: quitting must never wait on a dialog.
ALWAYS_KEYS = frozenset({"ctrl+c", "ctrl+q"})

ResultType = TypeVar("ResultType")


class Arming:
    """When the keys of a question screen count: once ARMING_SECONDS have passed since it was
    shown and since the last key dropped, by a clock the tests can drive."""

    def __init__(
        self, seconds: float = ARMING_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self.clock = clock

    def takes(self, screen: Screen[Any], key: str) -> bool:
        """Whether `key`, pressed now with `screen` on top, reaches it."""
        if key in ALWAYS_KEYS or not isinstance(screen, QuestionScreen):
            return True
        if screen.shown_at is None:  # not on screen yet
            return False
        now = self.clock()
        if now - screen.shown_at >= self.seconds:
            return True
        screen.shown_at = now  # still typing: the quiet time starts again
        return False


class QuestionScreen(ModalScreen[ResultType]):
    """A modal question that may open while the user types: the app drops its keys until
    the typing has stopped for a moment (Arming, checked in PleatApp.on_event). Mouse clicks
    always count: nobody clicks a button they have not seen."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    def __init__(self) -> None:
        super().__init__()
        # When it was shown, or when the last key it dropped came (the app's arming clock).
        self.shown_at: float | None = None

    def on_screen_resume(self) -> None:
        arming = getattr(self.app, "arming", None)
        clock = arming.clock if isinstance(arming, Arming) else time.monotonic
        self.shown_at = clock()
