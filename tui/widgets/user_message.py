"""A message the user sent, shown verbatim (no markup) with an accent border."""

from __future__ import annotations

from textual.widgets import Static

from agent.terminal_text import visible
from tui.entries import UserEntry


class UserMessage(Static):
    """One user prompt in the conversation."""

    def __init__(self, entry: UserEntry) -> None:
        super().__init__(visible(entry.text), markup=False)
        self.entry = entry

    @property
    def text(self) -> str:
        return self.entry.text
