"""What a custom command sent: a collapsed block under the typed line, titled with its file."""

from __future__ import annotations

from textual.widgets import Collapsible, Static

from agent.conversation.entries import ExpansionEntry
from agent.terminal_text import visible

# Characters of the expanded prompt shown when the block is opened: enough to check what the
# command asked; a long include is the file the user already has.
SHOWN_CHARS = 4_000


def title(entry: ExpansionEntry) -> str:
    size = f"{len(entry.text):,} characters sent"
    return f"expanded from {visible(entry.source)} · {size}" if entry.source else size


class CommandExpansion(Collapsible):
    """The prompt a custom command expanded to, collapsed (the model received this text)."""

    def __init__(self, entry: ExpansionEntry) -> None:
        text = visible(entry.text)
        shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "\n…"
        super().__init__(
            Static(shown, markup=False, classes="expansion"), title=title(entry), collapsed=True
        )
        self.entry = entry
