"""A fixed Markdown text from the app itself in the conversation (configuration help, /help)."""

from __future__ import annotations

from textual.widgets import Markdown

from agent.conversation.entries import MarkdownEntry


class AppMarkdown(Markdown):
    """Markdown written by pleat, not by the model (styled by its classes, e.g. "help")."""

    def __init__(self, entry: MarkdownEntry) -> None:
        super().__init__(entry.text, classes=entry.classes)
        self.entry = entry
