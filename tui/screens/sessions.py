"""/sessions and /resume: this workspace's sessions, newest first, filtered as you type; Enter
resumes one."""

from __future__ import annotations

import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from agent.terminal_text import visible
from sessions.store import SUBAGENT, SessionInfo
from tui.screens.styles import SCREENS_CSS

# Shown instead of a title for a session nobody has typed into or named.
NO_REQUEST = "(no request yet)"
# The keys, said under the list.
KEYS = "type to filter · ↑↓ choose · Enter resumes · Esc closes"
# Byte units of a journal's size, each 1,024 of the one before.
SIZE_UNITS = ("B", "KB", "MB", "GB")


def human_size(size: int) -> str:
    """A byte count as people read it: 812 B, 4.2 KB, 31 MB."""
    amount = float(size)
    for unit in SIZE_UNITS:
        if amount < 1024 or unit == SIZE_UNITS[-1]:
            break
        amount /= 1024
    if unit == SIZE_UNITS[0]:
        return f"{size} B"
    return f"{amount:.1f} {unit}" if amount < 10 else f"{amount:.0f} {unit}"


def session_label(info: SessionInfo, current: str | None) -> str:
    """Two lines for one session, control characters made visible (the title and prompts are
    the user's text, the reason and workspace come from a file)."""
    return visible(_label(info, current))


def _label(info: SessionInfo, current: str | None) -> str:
    if info.damaged:
        return f"{info.id} · damaged\n  {info.damaged}"
    last = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.last_active))
    mark = "  ← open now" if info.id == current else ""
    fork = f" · fork of {info.parent}" if info.parent else ""
    if info.kind == SUBAGENT:
        fork = f" · sub-agent of {info.parent}"
    turns = f"{info.turns} turn{'' if info.turns == 1 else 's'}"
    chunks = f" · {info.chunks} chunk{'' if info.chunks == 1 else 's'}" if info.chunks else ""
    return (
        f"{info.title or NO_REQUEST}{mark}\n"
        f"  {last} · {turns} · {human_size(info.size)}{chunks} · {info.id}{fork}"
    )


def matches(info: SessionInfo, words: list[str]) -> bool:
    """Every word of the filter is in the session's title, its prompts or its id (any case); a
    damaged session matches by its id and the word "damaged"."""
    text = f"{info.id} damaged" if info.damaged else f"{info.title}\n{info.prompts}\n{info.id}"
    return all(word in text.lower() for word in words)


class SessionsScreen(ModalScreen[str | None]):
    """Dismisses with the chosen session's id (None: Escape)."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
    ]

    def __init__(self, sessions: list[SessionInfo], current: str | None) -> None:
        super().__init__()
        self.sessions = sessions
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions"):
            yield Label("Sessions of this workspace", id="sessions-title")
            yield Input(placeholder="type to filter by title or prompt", id="session-filter")
            # markup off: a title's "[/]" is text, not markup
            yield OptionList(id="session-list", markup=False)
            yield Label("", id="sessions-state")

    def on_mount(self) -> None:
        self.refill()
        self.query_one("#session-filter", Input).focus()

    def refill(self) -> None:
        """List the sessions the filter matches; damaged ones are listed but cannot be chosen."""
        words = self.query_one("#session-filter", Input).value.lower().split()
        shown = [s for s in self.sessions if matches(s, words)]
        listing = self.query_one("#session-list", OptionList)
        listing.clear_options()
        listing.add_options(
            Option(session_label(s, self.current), id=s.id, disabled=bool(s.damaged)) for s in shown
        )
        chosen = next((i for i, s in enumerate(shown) if not s.damaged), None)
        listing.highlighted = chosen
        state = f"{len(shown)} of {len(self.sessions)} sessions · {KEYS}"
        self.query_one("#sessions-state", Label).update(state)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        listing = self.query_one("#session-list", OptionList)
        if listing.highlighted is not None:
            option = listing.get_option_at_index(listing.highlighted)
            if not option.disabled:
                self.dismiss(option.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_move(self, step: int) -> None:
        listing = self.query_one("#session-list", OptionList)
        if step < 0:
            listing.action_cursor_up()
        else:
            listing.action_cursor_down()

    def action_close(self) -> None:
        self.dismiss(None)
