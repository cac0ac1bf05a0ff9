"""A fold in the conversation: "compacting…", then what was folded where (Enter opens the chunk
beside the summary that replaced it)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from agent.conversation.entries import FoldEntry, FoldState
from agent.terminal_text import visible

# The sign before every fold line, the same as the headless CLI's.
FOLD_SIGN = "⟳"


class CompactionMarker(Static, can_focus=True):
    """One compaction; its classes follow its state (running, done, failed, cancelled)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open chunk and summary", show=False),
    ]

    class Selected(Message):
        """The user asked to read the chunk this marker folded into, and its summary."""

        def __init__(self, chunk: int, summary: str | None = None) -> None:
            super().__init__()
            self.chunk = chunk
            self.summary = summary

    def __init__(self, entry: FoldEntry) -> None:
        super().__init__(markup=False, classes=entry.state)
        self.entry = entry
        self._show()

    @property
    def text(self) -> str:
        return self.entry.text

    @property
    def state(self) -> FoldState:
        return self.entry.state

    def settle(
        self, state: FoldState, text: str, chunk: int | None = None, summary: str | None = None
    ) -> None:
        """The compaction ended: done (with its chunk and the summary that replaced it),
        failed or cancelled."""
        self.remove_class(self.entry.state)
        self.entry.state, self.entry.text, self.entry.chunk = state, text, chunk
        self.entry.summary = summary
        self.add_class(state)
        self._show()

    def _show(self) -> None:
        hint = "  (Enter: read it)" if self.entry.chunk is not None else ""
        self.update(f"{FOLD_SIGN} {visible(self.entry.text)}{hint if self.has_focus else ''}")
        self.tooltip = "open this chunk and its summary" if self.entry.chunk else None

    def on_focus(self) -> None:
        self._show()

    def on_blur(self) -> None:
        self._show()

    def on_click(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        if self.entry.chunk is not None:
            self.post_message(self.Selected(self.entry.chunk, self.entry.summary))
