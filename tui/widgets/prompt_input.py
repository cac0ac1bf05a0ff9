"""The prompt line: a Textual Input with the session's earlier prompts on up / down."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input


class PromptInput(Input):
    """Enter submits; up and down walk through previous prompts (the draft is kept)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history(-1)", "Previous prompt", show=False),
        Binding("down", "history(1)", "Next prompt", show=False),
    ]

    def __init__(self, placeholder: str = "") -> None:
        super().__init__(placeholder=placeholder, id="prompt")
        self.history: list[str] = []
        self._position = 0  # index into history; len(history) means the draft
        self._draft = ""

    def remember(self, text: str) -> None:
        """Add a submitted prompt to the history (not twice in a row)."""
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)
        self._draft = ""

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._position == len(self.history):
            self._draft = self.value
        position = max(0, min(len(self.history), self._position + step))
        if position == self._position:
            return
        self._position = position
        self.value = self.history[position] if position < len(self.history) else self._draft
        self.cursor_position = len(self.value)
