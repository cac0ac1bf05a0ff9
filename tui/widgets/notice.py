"""One-line notes in the conversation: errors (red), interruptions and retries (dim)."""

from __future__ import annotations

from typing import Literal

from textual.widgets import Static

NoticeKind = Literal["error", "note"]


class Notice(Static):
    """A short line the agent or the app wants the user to see; never a traceback."""

    def __init__(self, text: str, kind: NoticeKind = "note") -> None:
        super().__init__(text, markup=False, classes=kind)
        self.text = text
        self.kind = kind
