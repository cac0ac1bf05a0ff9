"""A tool call: a collapsible block titled with the call and its outcome, holding the result."""

from __future__ import annotations

from typing import Any

from textual.markup import escape
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Static
from textual.widgets._collapsible import CollapsibleTitle

from agent.conversation.entries import ToolEntry
from agent.terminal_text import visible
from sessions.paths import is_session_id
from tui.widgets.diff_view import DiffView

# Lines of a tool result shown in the block: enough to recognise a file or a test run, short
# enough that a long result does not push the conversation off screen (the model gets it all).
PREVIEW_LINES = 20

# The mark before a call in its title: still running, succeeded, failed (or refused).
RUNNING, SUCCEEDED, FAILED = "…", "✓", "✗"
# After a task's title: its sub-agent's transcript opens from the block.
TRANSCRIPT_HINT = "(Enter: sub-agent transcript)"


def preview(text: str, lines: int = PREVIEW_LINES) -> str:
    """The first `lines` lines of a result, with a count of the rest."""
    all_lines = text.splitlines()
    shown = "\n".join(all_lines[:lines])
    hidden = len(all_lines) - lines
    return f"{shown}\n… {hidden} more lines" if hidden > 0 else shown


def _title(entry: ToolEntry) -> str:
    """The block's title: the outcome mark, then the call (escaped: it is not markup); for a
    task, what its sub-agent does while it runs, and how to read its transcript."""
    mark = RUNNING if entry.result is None else FAILED if entry.is_error else SUCCEEDED
    title = f"{mark} {escape(visible(entry.summary))}"
    if entry.result is None and entry.activity:
        title += f" ↳ {escape(visible(entry.activity))}"
    if entry.subsession is not None:
        title += f"  [dim]{TRANSCRIPT_HINT}[/dim]"
    return title


def _result_widgets(entry: ToolEntry) -> list[Widget]:
    if entry.result is None:
        return []
    widgets: list[Widget] = [Static(visible(preview(entry.result)), markup=False, classes="result")]
    if entry.diff:
        widgets.append(DiffView(visible(entry.diff), classes="diff"))
    return widgets


class ToolCallBlock(Collapsible):
    """One tool call; `finish()` adds the result and marks it ✓ or ✗. Open when it holds a
    diff, so an edit is seen even when nobody was asked to approve it. A task's block opens
    its sub-agent's transcript instead (Enter or a click on its title)."""

    class OpenTranscript(Message):
        """The user asked to read the transcript of a task's sub-agent."""

        def __init__(self, session_id: str, title: str) -> None:
            super().__init__()
            self.session_id = session_id
            self.title = title

    def __init__(self, entry: ToolEntry) -> None:
        super().__init__(*_result_widgets(entry), title=_title(entry), collapsed=not entry.diff)
        self.entry = entry
        self.set_class(entry.is_error, "failed")

    @property
    def summary(self) -> str:
        return self.entry.summary

    @property
    def finished(self) -> bool:
        return self.entry.result is not None

    @property
    def is_error(self) -> bool:
        return self.entry.is_error

    def follow(self, session_id: str, activity: str) -> None:
        """A task's sub-agent started (its session) or called a tool (`activity`)."""
        self.entry.subsession = session_id
        self.entry.activity = activity or self.entry.activity
        self.title = _title(self.entry)

    def on_collapsible_title_toggle(self, event: CollapsibleTitle.Toggle) -> None:
        """A task's title opens its sub-agent's transcript rather than the block."""
        if self.entry.subsession is None:
            return  # the Collapsible's own handler opens or closes the block
        event.prevent_default()
        event.stop()
        self.post_message(self.OpenTranscript(self.entry.subsession, self.entry.summary))

    async def finish(self, text: str, is_error: bool, meta: dict[str, Any]) -> None:
        """Record the result (kept even if the block was scrolled out of the window) and
        show it."""
        diff = meta.get("diff")
        subsession = meta.get("subsession")
        if isinstance(subsession, str) and is_session_id(subsession):
            self.entry.subsession = subsession
        self.entry.result = text
        self.entry.is_error = is_error
        self.entry.diff = diff if isinstance(diff, str) and diff else None
        self.title = _title(self.entry)
        self.set_class(is_error, "failed")
        if not self.is_mounted:
            return
        await self.query_one(Collapsible.Contents).mount_all(_result_widgets(self.entry))
        if self.entry.diff:
            self.collapsed = False
