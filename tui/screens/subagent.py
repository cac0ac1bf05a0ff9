"""A sub-agent's transcript, read-only: what a task's sub-agent did, from its session's journal."""

from __future__ import annotations

import asyncio
import os
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Label

from agent.conversation.entries import Entry, NoticeEntry
from agent.conversation.transcript import Describe, describer, entries_from_history
from agent.terminal_text import visible
from agent.turn.loop import Agent
from sessions.journal import JOURNAL_NAME, replay_journal
from sessions.messages import ToolCall
from sessions.paths import session_dir
from tui.screens.styles import SCREENS_CSS
from tui.widgets.conversation import Conversation

# Seconds between looks at the journal while the screen is open: a running sub-agent's new
# steps appear within a second; a look is one stat() call when nothing changed.
RELOAD_SECONDS = 1.0


def _plain(call: ToolCall) -> str:
    return f"{call.name}(…)"


def read_transcript(session_id: str, describe: Describe) -> list[Entry]:
    """The sub-agent's conversation as entries (its system prompt is not shown); a journal
    that cannot be read is one line saying so. Blocking: call it in a thread."""
    try:
        replayed = replay_journal(session_dir(session_id) / JOURNAL_NAME)
    except (OSError, ValueError) as error:
        return [NoticeEntry(f"the sub-agent's journal cannot be read: {error}", "error")]
    entries = entries_from_history(replayed.history, describe)
    return entries or [NoticeEntry("the sub-agent has not started yet")]


class SubagentScreen(Screen[None]):
    """Shows one sub-agent's transcript, following its journal while it grows. Escape goes
    back to the conversation."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Back")]

    def __init__(self, session_id: str, title: str, agent: Agent | None) -> None:
        super().__init__()
        self.session_id = session_id
        self.task_title = title
        self.describe = describer(agent) if agent is not None else _plain
        self._seen: tuple[int, int] | None = None  # the journal's (size, mtime) last shown

    def compose(self) -> ComposeResult:
        title = f"Sub-agent transcript (read-only) · {self.task_title} · session {self.session_id}"
        yield Label(Content(visible(title)), id="subagent-title")
        yield Conversation(id="subagent-transcript")
        yield Footer()

    @property
    def transcript(self) -> Conversation:
        return self.query_one("#subagent-transcript", Conversation)

    def on_mount(self) -> None:
        self.transcript.focus()
        self.reload()
        self.set_interval(RELOAD_SECONDS, self.reload)

    def _stamp(self) -> tuple[int, int] | None:
        try:
            info = os.stat(session_dir(self.session_id) / JOURNAL_NAME)
        except (OSError, ValueError):
            return None
        return info.st_size, info.st_mtime_ns

    @work(group="transcript", exclusive=True, exit_on_error=False)
    async def reload(self) -> None:
        """Show the transcript again if the journal changed since it was last shown."""
        stamp = self._stamp()
        if stamp is not None and stamp == self._seen:
            return
        entries = await asyncio.to_thread(read_transcript, self.session_id, self.describe)
        self._seen = stamp
        await self.transcript.reset(entries)

    def action_close(self) -> None:
        self.dismiss(None)
