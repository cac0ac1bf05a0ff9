"""The editor as a front end of the built-in commands (agent/slash/context.py FrontEnd): it has
no screen of pleat's, so the bodies answer in text (a list instead of a picker, a --preview
summary as the answer), and a rewritten conversation is said, since the editor keeps its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.slash.no_screens import NoScreens

if TYPE_CHECKING:
    from agent.slash.context import Replaced

# Said after /undo or /rewind changed the conversation: the editor still shows what it showed.
REPLACED = (
    "the editor still shows the conversation as it was; open the session again (load it) to see "
    "it as pleat has it now"
)


class EditorFront(NoScreens):
    """agent.slash.context.FrontEnd for `pleat acp`: as headless, but a rewritten conversation is
    said (the editor keeps its own copy of it)."""

    async def history_replaced(
        self, source: Replaced, request: str | None = None, notes: Sequence[str] = ()
    ) -> list[str]:
        return [*notes, REPLACED]
