"""A tool call: a collapsible block titled with the call and its outcome, holding the result."""

from __future__ import annotations

from typing import Any

from textual.markup import escape
from textual.widgets import Collapsible, Static

from tui.widgets.diff_view import DiffView

# Lines of a tool result shown in the block: enough to recognise a file or a test run, short
# enough that a long result does not push the conversation off screen (the model gets it all).
PREVIEW_LINES = 20

# The mark before a call in its title: still running, succeeded, failed (or refused).
RUNNING, SUCCEEDED, FAILED = "…", "✓", "✗"


def preview(text: str, lines: int = PREVIEW_LINES) -> str:
    """The first `lines` lines of a result, with a count of the rest."""
    all_lines = text.splitlines()
    shown = "\n".join(all_lines[:lines])
    hidden = len(all_lines) - lines
    return f"{shown}\n… {hidden} more lines" if hidden > 0 else shown


def _title_text(mark: str, summary: str) -> str:
    """The block's title: the outcome mark, then the call (escaped: it is not markup)."""
    return f"{mark} {escape(summary)}"


class ToolCallBlock(Collapsible):
    """One tool call; `finish()` adds the result and marks it ✓ or ✗."""

    def __init__(self, summary: str) -> None:
        super().__init__(title=_title_text(RUNNING, summary), collapsed=True)
        self.summary = summary
        self.finished = False
        self.is_error = False

    async def finish(self, text: str, is_error: bool, meta: dict[str, Any]) -> None:
        """Show the result preview, and the diff when the tool produced one (open, so it is
        seen even when nobody was asked to approve it)."""
        self.finished = True
        self.is_error = is_error
        self.title = _title_text(FAILED if is_error else SUCCEEDED, self.summary)
        self.set_class(is_error, "failed")
        contents = self.query_one(Collapsible.Contents)
        await contents.mount(Static(preview(text), markup=False, classes="result"))
        diff = meta.get("diff")
        if isinstance(diff, str) and diff:
            await contents.mount(DiffView(diff, classes="diff"))
            self.collapsed = False
