"""A message the user sent, shown verbatim (no markup) with an accent border."""

from __future__ import annotations

from textual.widgets import Static


class UserMessage(Static):
    """One user prompt in the conversation."""

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False)
        self.text = text
