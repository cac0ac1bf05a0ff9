"""The front end of the built-in commands where nobody is there to pick or look (`pleat -p`, and
an editor over ACP, which has no screen of pleat's): the bodies list instead of picking, keep
the user's files, and answer a --preview with the summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.slash.context import NotHere

if TYPE_CHECKING:
    from agent.slash.context import Replaced, RewindChoice
    from sessions.lineage import Turn


@dataclass
class NoScreens:
    """A front end with nobody to ask and nothing to show: the bodies list instead of picking,
    keep the user's files, and print a --preview summary."""

    interactive: bool = False

    async def review_summary(self, summary: str) -> str | None:
        raise NotHere

    async def pick_turn(self, turns: list[Turn]) -> RewindChoice | None:
        raise NotHere

    async def overwrite(self, conflicts: list[str]) -> list[str] | None:
        return []  # never the user's changes

    async def history_replaced(
        self, source: Replaced, request: str | None = None, notes: Sequence[str] = ()
    ) -> list[str]:
        return []

    async def pick_session(self) -> str | None:
        raise NotHere

    async def show(self, what: str, arg: str) -> None:
        raise NotHere

    def copy(self, text: str) -> None:
        raise NotHere

    def quit(self) -> None:
        raise NotHere
