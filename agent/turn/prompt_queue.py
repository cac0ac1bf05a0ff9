"""Prompts sent while a turn runs: held in order, delivered at the turn's next model call.

A line starting with COMMAND_PREFIX is a command the front end runs itself (the TUI's `!` shell
mode), not a prompt: it waits in the same queue, in order, and a turn reads only the prompts
before it; it runs when the turn ends (tui/tasks.py follow_up), and what follows it after that.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from agent.events import PromptDelivered
from sessions import messages as msg
from sessions.messages import Message

if TYPE_CHECKING:
    from agent.images.prompt import Attached

# Between prompts joined into one (those still queued when a turn ends become the next turn):
# a blank line, so each reads as its own paragraph.
JOINER = "\n\n"
# How a command line starts (Claude Code's bash mode key): `!make test`.
COMMAND_PREFIX = "!"


def joined(prompts: Sequence[str]) -> str:
    """Several prompts as one."""
    return JOINER.join(prompts)


class PromptQueue:
    """The prompts waiting, oldest first. The front end puts, takes back (to edit or drop) and
    shows them; the agent's turn delivers them between tool steps (Agent.run_turn)."""

    def __init__(self) -> None:
        self._prompts: list[str] = []

    @property
    def prompts(self) -> tuple[str, ...]:
        return tuple(self._prompts)

    def __len__(self) -> int:
        return len(self._prompts)

    def put(self, text: str) -> None:
        self._prompts.append(text)

    @property
    def deliverable(self) -> tuple[str, ...]:
        """The prompts a turn may read now: those before the first command line."""
        first = next(
            (i for i, p in enumerate(self._prompts) if p.startswith(COMMAND_PREFIX)),
            len(self._prompts),
        )
        return tuple(self._prompts[:first])

    def take_command(self) -> str | None:
        """The command line at the head of the queue (as typed, with its `!`), taken out; None
        when the head is a prompt or nothing waits."""
        if self._prompts and self._prompts[0].startswith(COMMAND_PREFIX):
            return self._prompts.pop(0)
        return None

    def take_deliverable(self) -> list[str]:
        """The prompts before the first command line, taken out (oldest first)."""
        taken = list(self.deliverable)
        del self._prompts[: len(taken)]
        return taken

    def take_newest(self) -> str | None:
        """Take the newest prompt back (to edit it, or drop it), or None when none waits."""
        return self._prompts.pop() if self._prompts else None

    def take_all(self) -> list[str]:
        """Every prompt waiting, oldest first; the queue is empty after."""
        taken, self._prompts = self._prompts, []
        return taken

    def take_if_first(self, prompts: Sequence[str]) -> bool:
        """Take `prompts` out if they still wait at the head of the queue (a hook was checking
        them, and nothing took them back meanwhile); whether they were taken."""
        count = len(prompts)
        if not count or tuple(self._prompts[:count]) != tuple(prompts):
            return False
        del self._prompts[:count]
        return True

    async def deliver(
        self,
        add: Callable[[Message], Message],
        attach: Callable[[str], Awaitable[Attached]],
        checked: Sequence[str] | None = None,
    ) -> list[PromptDelivered]:
        """Append the waiting prompts to the history (through `add`) as one user message marked
        `queued` (one: a history never holds two user messages in a row), with the images they
        name (`attach`: agent/images/prompt.py), as a prompt sent alone has them; its event, for
        the front end to show where it landed, or none when no prompt waits before a command
        line. `checked`: only
        those prompts (a UserPromptSubmit hook passed them), if they still wait first; the rest
        waits for the next step."""
        if checked is not None:
            prompts = list(checked) if self.take_if_first(checked) else []
        else:
            prompts = self.take_deliverable()
        if not prompts:
            return []
        text = joined(prompts)
        attached = await attach(text)
        message = add(msg.user(text, attached.images, queued=True))
        labels = tuple(image.label() for image in attached.images)
        return [PromptDelivered(text, message.id, labels, attached.notes)]
