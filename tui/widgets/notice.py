"""One-line notes in the conversation: errors (red), interruptions and retries (dim)."""

from __future__ import annotations

from textual.widgets import Static

from agent.conversation.entries import NoticeEntry, NoticeKind
from agent.terminal_text import visible


class Notice(Static):
    """A short line the agent or the app wants the user to see; never a traceback."""

    def __init__(self, entry: NoticeEntry) -> None:
        super().__init__(visible(entry.text), markup=False, classes=entry.kind)
        self.entry = entry

    @property
    def text(self) -> str:
        return self.entry.text

    @property
    def kind(self) -> NoticeKind:
        return self.entry.kind
