"""Steps a cancellation must not split: a chunk written, the history swapped, the journal told."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

_Result = TypeVar("_Result")


class UninterruptibleSteps:
    """Runs one agent's commits (a fold's or a shrink's archive, swap and record) to their end
    even when the caller is cancelled meanwhile; the cancellation is delivered after. A front
    end that quits waits for `settled` first, so no chunk is left on disk that the journal does
    not know."""

    def __init__(self) -> None:
        self._running: asyncio.Task[Any] | None = None

    async def run(self, work: Coroutine[Any, Any, _Result]) -> _Result:
        """`work`'s result; CancelledError after it completed if the caller was cancelled."""
        task = asyncio.ensure_future(work)
        self._running = task
        cancelled = False
        while True:
            try:
                result = await asyncio.shield(task)
                break
            except asyncio.CancelledError:
                if task.done():
                    raise
                cancelled = True
        if cancelled:
            raise asyncio.CancelledError
        return result

    @property
    def running(self) -> bool:
        return self._running is not None and not self._running.done()

    async def settled(self) -> None:
        """Wait until no commit runs (its outcome, error included, is its caller's)."""
        if self._running is not None and not self._running.done():
            await asyncio.wait({self._running})
