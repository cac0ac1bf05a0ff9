"""The prompt's vim keys on the widget: each key fed to the state machine (tui/vim.py), what it
answers applied to the TextArea as one edit, and the mode shown in the prompt's border title."""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea

from tui.vim import Mode, Vim

# The border title of each mode, as vim's own mode line says them.
TITLES: dict[Mode, str] = {"insert": "-- INSERT --", "normal": "-- NORMAL --"}


def offset_of(lines: list[str], location: tuple[int, int]) -> int:
    """A (row, column) of the TextArea as an offset into its lines joined by "\\n"."""
    row, column = location
    return sum(len(line) + 1 for line in lines[:row]) + column


def location_of(text: str, offset: int) -> tuple[int, int]:
    row = text.count("\n", 0, offset)
    return row, offset - (text.rfind("\n", 0, offset) + 1)


class VimPrompt:
    """Vim keys on one TextArea (the prompt): key() takes a key, or leaves it to the prompt."""

    def __init__(self, area: TextArea) -> None:
        self.area = area
        text, cursor = self._state()
        self.vim = Vim(text, cursor)
        self.show()

    def _state(self) -> tuple[str, int]:
        lines = list(self.area.document.lines)
        return "\n".join(lines), offset_of(lines, self.area.cursor_location)

    def key(self, event: events.Key) -> tuple[bool, bool]:
        """Feed one key: whether it is taken (nothing else may see it) and whether it submits."""
        name = event.character if event.is_printable and event.character else event.key
        text, cursor = self._state()
        before = self.vim.mode
        outcome = self.vim.feed(name, text, cursor)
        if outcome.text != text:
            self._replace(text, outcome.text)
        if outcome.handled or self.vim.mode != before:
            self.area.move_cursor(location_of(outcome.text, outcome.cursor))
        self.show()
        return outcome.handled, outcome.submit

    def forget(self, *, insert: bool = False) -> None:
        """The text was replaced from outside (sent, a history entry, the editor): no undo in
        it; `insert`: back to insert mode (after sending, for the next prompt)."""
        text, cursor = self._state()
        self.vim.forget(text, cursor, "insert" if insert else None)
        self.show()

    def show(self) -> None:
        pending = self.vim.pending
        self.area.border_title = TITLES[self.vim.mode] + (f" {pending}" if pending else "")

    def _replace(self, old: str, new: str) -> None:
        """Make the text `new` with one replacement of the part that differs (one undo step
        of the TextArea's own, and no reflow of the rest)."""
        start = 0
        limit = min(len(old), len(new))
        while start < limit and old[start] == new[start]:
            start += 1
        tail = 0
        while tail < limit - start and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        self.area.replace(
            new[start : len(new) - tail],
            location_of(old, start),
            location_of(old, len(old) - tail),
            maintain_selection_offset=False,
        )
