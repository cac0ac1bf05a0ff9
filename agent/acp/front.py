"""The editor as a front end of the built-in commands (agent/slash/context.py FrontEnd): it has
no screen of pleat's, so the bodies answer in text (a list instead of a picker, a --preview
summary as the answer), and a rewritten conversation is said, since the editor keeps its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.slash.context import NotHere

if TYPE_CHECKING:
    from agent.slash.context import Replaced, RewindChoice
    from sessions.lineage import Turn

# Said after /undo or /rewind changed the conversation: the editor still shows what it showed.
REPLACED = (
    "the editor still shows the conversation as it was; open the session again (load it) to see "
    "it as pleat has it now"
)


class EditorFront:
    """agent.slash.context.FrontEnd for `pleat acp`."""

    interactive = False

    async def review_summary(self, summary: str) -> str | None:
        raise NotHere

    async def pick_turn(self, turns: list[Turn]) -> RewindChoice | None:
        raise NotHere

    async def overwrite(self, conflicts: list[str]) -> list[str] | None:
        return []  # never the user's changes made since pleat wrote the files

    async def history_replaced(
        self, source: Replaced, request: str | None = None, notes: Sequence[str] = ()
    ) -> list[str]:
        return [*notes, REPLACED]

    async def pick_session(self) -> str | None:
        raise NotHere

    async def show(self, what: str, arg: str) -> None:
        raise NotHere

    def copy(self, text: str) -> None:
        raise NotHere

    def quit(self) -> None:
        raise NotHere
