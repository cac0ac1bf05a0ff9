"""A message the user sent, shown verbatim (no markup) with an accent border, and a line for each
image attached to it."""

from __future__ import annotations

from textual.widgets import Static

from agent.conversation.entries import UserEntry
from agent.terminal_text import visible


class UserMessage(Static):
    """One user prompt in the conversation."""

    def __init__(self, entry: UserEntry) -> None:
        lines = [entry.text, *(f"[image: {label}]" for label in entry.images)]
        super().__init__(visible("\n".join(lines)), markup=False)
        self.entry = entry

    @property
    def text(self) -> str:
        return self.entry.text
