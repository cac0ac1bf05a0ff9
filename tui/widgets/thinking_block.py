"""The model's reasoning: a collapsed block titled with its size, the text inside."""

from __future__ import annotations

from textual.timer import Timer
from textual.widgets import Collapsible, Static

from agent.conversation.entries import ThinkingEntry
from agent.terminal_text import visible
from tui.widgets.stream_pacing import MIN_PAUSE_SECONDS

# Characters of reasoning shown when the block is opened: a long think is summarized by its
# start; the model's reply says what came of it.
SHOWN_CHARS = 4_000


def _title(entry: ThinkingEntry) -> str:
    size = len(entry.text)
    return f"thought · {size:,} characters" if entry.done else f"thinking… {size:,} characters"


def _shown(entry: ThinkingEntry) -> str:
    text = visible(entry.text)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "\n…"


class ThinkingBlock(Collapsible):
    """Reasoning, collapsed: the title grows while it streams (redrawn at the streamed reply's
    frame rate at most, not per delta); opening it shows the text."""

    def __init__(self, entry: ThinkingEntry) -> None:
        self.body = Static(_shown(entry), markup=False, classes="thinking")
        super().__init__(self.body, title=_title(entry), collapsed=True)
        self.entry = entry
        self._redraw: Timer | None = None

    def write(self, text: str) -> None:
        self.entry.parts.append(text)
        if self._redraw is None:
            self._redraw = self.set_timer(MIN_PAUSE_SECONDS, self._show)

    def finish(self) -> None:
        self.entry.done = True
        if self._redraw is not None:
            self._redraw.stop()
        self._show()

    def _show(self) -> None:
        self._redraw = None
        self.title = _title(self.entry)
        self.body.update(_shown(self.entry))
