"""The scrolling conversation: prompts, replies, tool blocks and notes, newest at the bottom."""

from __future__ import annotations

from typing import TypeVar

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Markdown

from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.notice import Notice, NoticeKind
from tui.widgets.tool_call import ToolCallBlock
from tui.widgets.user_message import UserMessage

W = TypeVar("W", bound=Widget)


class Conversation(VerticalScroll):
    """Holds the widgets of the exchange; stays scrolled to the end until the user scrolls up."""

    def on_mount(self) -> None:
        self.anchor()

    async def _add(self, widget: W) -> W:
        await self.mount(widget)
        return widget

    async def add_user(self, text: str) -> UserMessage:
        return await self._add(UserMessage(text))

    async def add_assistant(self) -> AssistantMessage:
        return await self._add(AssistantMessage())

    async def add_tool_call(self, summary: str) -> ToolCallBlock:
        return await self._add(ToolCallBlock(summary))

    async def add_notice(self, text: str, kind: NoticeKind = "note") -> Notice:
        return await self._add(Notice(text, kind))

    async def add_markdown(self, text: str, classes: str) -> Markdown:
        """A fixed Markdown text from the app itself (e.g. the configuration help)."""
        return await self._add(Markdown(text, classes=classes))
