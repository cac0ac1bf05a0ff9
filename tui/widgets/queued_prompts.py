"""The prompts sent while pleat works, pinned above the prompt until the model reads them."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from agent.terminal_text import visible

# Characters of a queued prompt shown on its line (its first line only): enough to recognise
# it; the whole text is sent.
MAX_SHOWN_CHARS = 120
# Under the list: what the user can do with it.
HINT = "sent when pleat next reads · ↑ in an empty prompt takes the newest back to edit or drop"


def first_line(prompt: str) -> str:
    """A prompt on one line: its first line, cut to MAX_SHOWN_CHARS, "…" when there is more."""
    lines = prompt.strip().splitlines() or [""]
    line = lines[0]
    more = len(lines) > 1 or len(line) > MAX_SHOWN_CHARS
    return line[:MAX_SHOWN_CHARS] + ("…" if more else "")


class QueuedPrompts(Static):
    """Queued prompts, oldest first; hidden when none waits."""

    def __init__(self) -> None:
        super().__init__(id="queued", markup=False)
        self.prompts: tuple[str, ...] = ()
        self.display = False

    def show(self, prompts: Sequence[str]) -> None:
        self.prompts = tuple(prompts)
        self.display = bool(self.prompts)
        text = Text()
        for prompt in self.prompts:
            text.append("queued ", style="bold")
            text.append(visible(first_line(prompt)) + "\n")
        text.append(HINT, style="dim italic")
        self.update(text if self.prompts else "")
