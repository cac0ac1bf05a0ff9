"""Questions that open unasked take keys only once they have been seen (a moment after opening)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from textual.screen import ModalScreen, Screen

# Seconds a question (approve a call, accept a plan, run a project's MCP servers, overwrite
# files changed since) ignores keys after it opens. It opens while the user may be typing the
# next prompt: without this, a `y`, `n` or Enter meant for the prompt answers a question nobody
# read (users of Claude Code and Codex CLI report exactly that). 0.4 s covers a typist's next
# few keys and the time to notice the dialog, and is shorter than anyone reads a question in.
ARMING_SECONDS = 0.4
# Keys that keep working while a question arms: quitting must never wait on a dialog.
ALWAYS_KEYS = frozenset({"ctrl+c", "ctrl+q"})

ResultType = TypeVar("ResultType")


class Arming:
    """When the keys of a question screen count: ARMING_SECONDS after it was shown, by a
    clock the tests can drive."""

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
        return self.clock() - screen.shown_at >= self.seconds


class QuestionScreen(ModalScreen[ResultType]):
    """A modal question that may open while the user types: the app drops its keys until
    it has been shown for a moment (Arming, checked in PleatApp.on_event). Mouse clicks
    always count: nobody clicks a button they have not seen."""

    def __init__(self) -> None:
        super().__init__()
        self.shown_at: float | None = None  # on the app's arming clock

    def on_screen_resume(self) -> None:
        arming = getattr(self.app, "arming", None)
        clock = arming.clock if isinstance(arming, Arming) else time.monotonic
        self.shown_at = clock()
