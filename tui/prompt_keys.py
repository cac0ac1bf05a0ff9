"""Two keys of the prompt's: Ctrl+G edits the prompt in $VISUAL or $EDITOR, and Esc twice in an
empty prompt opens /rewind at the last turn. The app (tui/app.py) takes them as a mixin; they are
bound in the keys table (tui/keys.py)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from tui.external_editor import EditorError, edit_externally

if TYPE_CHECKING:
    from textual.screen import Screen

    from agent.commands.builtin import Builtin
    from tui.screens.question import Arming
    from tui.widgets.prompt_input import PromptInput

# Seconds within which a second Esc makes a double press: people press a double key well within
# half a second (the usual double-click time); the rest is room for a terminal over ssh, and it
# is short enough that two separate Escs, a pause apart, do not open a screen.
DOUBLE_ESCAPE_SECONDS = 0.8
# Said after the first Esc in an empty prompt, for as long as the second one counts.
REWIND_HINT = "Press Esc again to rewind to an earlier request."


class DoublePress:
    """Whether a key press is the second of a quick pair, by a clock the tests can drive (the
    app's arming clock: tests/support/tui_support.py ManualClock)."""

    def __init__(self, clock: Callable[[], float], seconds: float = DOUBLE_ESCAPE_SECONDS) -> None:
        self.clock = clock
        self.seconds = seconds
        self._first: float | None = None  # when the pair's first press came

    def press(self) -> bool:
        """Count a press now: True when it completes a pair (the next press starts anew)."""
        now = self.clock()
        if self._first is not None and now - self._first <= self.seconds:
            self._first = None
            return True
        self._first = now
        return False

    def forget(self) -> None:
        """Another key came between: the next press is a first one."""
        self._first = None


class KeysHost(Protocol):
    """What the keys use of the app."""

    @property
    def prompt(self) -> PromptInput: ...

    @property
    def working(self) -> bool: ...

    @property
    def screen(self) -> Screen[Any]: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    @property
    def escapes(self) -> DoublePress: ...

    def suspend(self) -> AbstractContextManager[None]: ...

    def notify(self, message: str, *, severity: Any = ..., timeout: float | None = ...) -> None: ...

    def run_slash(self, command: Builtin, arg: str) -> None: ...


class PromptKeys:
    """The actions of Ctrl+G and Esc Esc (see the module)."""

    arming: Arming  # the app's: its clock times the double Esc too

    @cached_property
    def escapes(self) -> DoublePress:
        """The Esc presses counted for a double one."""
        return DoublePress(lambda: self.arming.clock())

    def action_edit_prompt(self: KeysHost) -> None:
        """Ctrl+G: the prompt in the user's editor (the terminal handed over while it runs);
        the saved text comes back into the prompt. An editor that is missing or fails changes
        nothing: one line says why."""
        if self.screen is not self.screen_stack[0]:
            return
        try:
            edited = edit_externally(self.prompt.text, self.suspend)
        except EditorError as error:
            self.notify(f"Ctrl+G: {error}", severity="warning")
            return
        self.prompt.value = edited.removesuffix("\n")  # editors end the file with a new line
        self.prompt.focus()

    def action_rewind_on_escape(self: KeysHost) -> None:
        """Esc in an empty prompt, with nothing to interrupt: the second within
        DOUBLE_ESCAPE_SECONDS opens /rewind, its last turn highlighted."""
        from agent.commands.builtin import BY_NAME

        if self.working or self.prompt.text or self.screen is not self.screen_stack[0]:
            self.escapes.forget()
            return
        if self.escapes.press():
            self.run_slash(BY_NAME["rewind"], "")
        else:
            self.notify(REWIND_HINT, timeout=DOUBLE_ESCAPE_SECONDS)
