"""/sessions and /resume: this workspace's sessions, newest first; Enter resumes one."""

from __future__ import annotations

import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from agent.terminal_text import visible
from sessions.store import SessionInfo

# Shown instead of a first request for a session nobody has typed into.
NO_REQUEST = "(no request yet)"


def session_label(info: SessionInfo, current: str | None) -> str:
    """Two lines for one session, control characters made visible (the first request is the
    user's text, the reason and workspace come from a file)."""
    return visible(_label(info, current))


def _label(info: SessionInfo, current: str | None) -> str:
    if info.damaged:
        return f"{info.id} · damaged\n  {info.damaged}"
    last = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.last_active))
    mark = "  ← open now" if info.id == current else ""
    fork = f" · fork of {info.parent}" if info.parent else ""
    chunks = f"{info.chunks} chunk{'' if info.chunks == 1 else 's'}"
    return (
        f"{info.id} · {last} · {info.messages} messages · {chunks}{fork}{mark}\n"
        f"  {info.first_request or NO_REQUEST}"
    )


class SessionsScreen(ModalScreen[str | None]):
    """Dismisses with the chosen session's id (None: Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, sessions: list[SessionInfo], current: str | None) -> None:
        super().__init__()
        self.sessions = sessions
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions"):
            yield Label(
                "Sessions of this workspace (Enter resumes, Escape closes)", id="sessions-title"
            )
            yield OptionList(
                *(Option(session_label(s, self.current), id=s.id) for s in self.sessions),
                id="session-list",
                markup=False,  # a first request's "[/]" is text, not markup
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
