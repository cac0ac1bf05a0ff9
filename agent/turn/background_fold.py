"""A fold started early, in the background, on the conversation as it stood (issue: folds nobody
waits for).

Past `early_fold_at` of the threshold the compression call starts on a snapshot of the history
while the turn goes on; the call is the live prefix plus the instruction, as a fold at that
moment would send, so the provider's cache serves it. At the threshold the ready summary is
swapped in at once (agent/turn/loop.py Agent.compact): the messages that joined since the
snapshot stay verbatim after the rebuilt history. If the call is still running, the turn waits
for the rest of it, never for a second one. The summary is dropped, never applied, when the
conversation it folded changed: the snapshot must still be the start of the live history,
message for message (an /undo, /rewind, /model or resume rebuilds it), and it is dropped at
once when those commands run. Nothing is changed before the commit, so a background fold that
fails or is cancelled leaves nothing half applied.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agent.compaction.engine import Compactor
from agent.compaction.fold_parts import Summarized
from agent.events import CompactionFailed, Event, UsageReported
from sessions.messages import Message

# What a background fold hands back: the events of its compression call (the started event
# was said when it began), ending with Summarized, or CompactionFailed when no summary came.
Result = list[Event | Summarized]


class BackgroundFold:
    """One background fold: the snapshot it folds, and its compression call running."""

    def __init__(
        self,
        compactor: Compactor,
        snapshot: Sequence[Message],
        tools: list[dict[str, Any]],
        focus: str | None,
        growth: int,
    ) -> None:
        self.snapshot = list(snapshot)
        # Tokens the conversation will gain before the threshold: the verbatim tail the fold
        # keeps is smaller by as much, as what arrives meanwhile stays verbatim after it.
        self.growth = growth
        # Whether automatic folding was paused when it began: a failed background call must
        # not pause it (the ordinary fold at the threshold still runs).
        self._suspended = compactor.suspended_below
        self._compactor = compactor
        self.task: asyncio.Task[Result] = asyncio.ensure_future(self._run(tools, focus))

    async def _run(self, tools: list[dict[str, Any]], focus: str | None) -> Result:
        events: Result = []
        try:
            summarizing = self._compactor.summarize(
                self.snapshot, tools, reason="threshold", focus=focus, growth=self.growth
            )
            async for item in summarizing:
                events.append(item)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # never an unretrieved task error: a failed fold instead
            events.append(CompactionFailed("threshold", f"background fold failed: {error}"))
        if events and isinstance(events[-1], CompactionFailed):
            self._compactor.suspended_below = self._suspended
        return events[1:]  # the CompactionStarted was said when the fold began

    def still_fits(self, history: Sequence[Message]) -> bool:
        """Whether the snapshot is still the start of `history`, message for message."""
        if len(history) < len(self.snapshot):
            return False
        return all(a is b for a, b in zip(self.snapshot, history, strict=False))

    def added(self, history: Sequence[Message]) -> list[Message]:
        """The messages that joined `history` after the snapshot."""
        return list(history[len(self.snapshot) :])

    async def result(self) -> Result:
        """The fold's events, waiting for the rest of its call if it is still running."""
        return await asyncio.shield(self.task)

    def usage(self) -> list[UsageReported]:
        """What its compression call reported, once the call has finished (none before)."""
        task = self.task
        if not task.done() or task.cancelled() or task.exception() is not None:
            return []
        return [item for item in task.result() if isinstance(item, UsageReported)]

    def drop(self) -> None:
        """Cancel the call (if it still runs); its outcome is never applied."""
        self.task.cancel()


async def replayed(result: Result) -> AsyncIterator[Event | Summarized]:
    """A finished background fold's events, as the fold's own summarize() yields them."""
    for item in result:
        yield item
