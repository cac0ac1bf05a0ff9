"""What a built-in slash command's body is given (CommandContext) and what it may ask of the front
end running it (FrontEnd: screens, pickers, the clipboard; a front end that cannot, says so)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from agent.session.runtime import SessionController
    from agent.turn.loop import Agent
    from sessions.lineage import Scope, Turn
    from sessions.store import Session

# How a command ended, for a front end that reports it (pleat -p's exit code): done; refused
# (bad input, nothing to do: nothing changed); failed (it tried and could not); partial (done,
# but some of it was not: an undo that kept files changed since pleat wrote them).
Outcome = Literal["done", "refused", "failed", "partial"]
# What /rewind's picker answers: a turn and what to take back, or "fold" (fold up to it).
RewindChoice = tuple[int, "Scope | Literal['fold']"]
# Why the conversation is shown again: a rewind, or another session (Claude Code's SessionStart
# sources: "clear" is /new's).
Replaced = Literal["rewind", "resume", "clear", "fork"]


class Refused(Exception):
    """The command cannot do what it was asked; nothing changed. The message is one line."""


class Failed(Exception):
    """The command tried and could not; the message is one line."""


class NotHere(Exception):
    """The front end cannot do this (a screen, a picker): the command works elsewhere."""


class FrontEnd(Protocol):
    """What only an interactive front end can do for a command. A front end without screens sets
    `interactive` False and raises NotHere from the rest."""

    interactive: bool

    async def review_summary(self, summary: str) -> str | None:
        """/compact --preview: the summary to apply (edited or not), None to discard it."""
        ...

    async def pick_turn(self, turns: list[Turn]) -> RewindChoice | None:
        """/rewind alone: the turn to go back before and what to take back; None: cancelled."""
        ...

    async def overwrite(self, conflicts: list[str]) -> list[str] | None:
        """The files changed since pleat wrote them that the user lets an undo overwrite;
        None: cancel the undo."""
        ...

    async def history_replaced(
        self, source: Replaced, request: str | None = None, notes: Sequence[str] = ()
    ) -> list[str]:
        """The conversation was rewritten or another session opened (`source`): show it again,
        with `request` (the one undone) back in the input and `notes` (repairs made on
        resuming); returns the lines to add to what the command says."""
        ...

    async def pick_session(self) -> str | None:
        """/sessions, /resume alone: the id of the session of this workspace to switch to."""
        ...

    async def show(self, what: str, arg: str) -> None:
        """A screen of the front end's own: "context", "chunks", "sessions", "model",
        "plugin", "memory", "vim", "theme", "help"; `arg` is what followed the command."""
        ...

    def copy(self, text: str) -> None:
        """Put `text` on the user's clipboard."""
        ...

    def quit(self) -> None:
        """Leave, once it is safe."""
        ...


@dataclass
class CommandContext:
    """What a body works on: the agent and its session (None before a model is configured, for
    the rows that do not need one), the workspace, the session runtime where the front end has
    one, and the front end; `typed` is the line as the user wrote it (`/pleat:review x`)."""

    workspace: Path
    front: FrontEnd
    agent: Agent | None = None
    session: Session | None = None
    controller: SessionController | None = None
    typed: str = ""
    outcome: Outcome = field(default="done")

    def working(self) -> tuple[Agent, Session]:
        """The agent and the session; a row that needs them is refused earlier without them."""
        if self.agent is None or self.session is None:
            raise Refused("there is no session to work in (no model configured)")
        return self.agent, self.session
