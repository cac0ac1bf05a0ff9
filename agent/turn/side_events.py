"""What work inside a tool call reports for the front end while the call runs."""

from __future__ import annotations

import asyncio

from agent.events import Event


class SideEvents:
    """Events work running inside a tool call reports for the front end (a sub-agent's
    activity, its usage), passed on while the reply's concurrent calls run."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Event] = asyncio.Queue()

    def emit(self, event: Event) -> None:
        self._queue.put_nowait(event)

    async def next(self) -> Event:
        return await self._queue.get()

    def pending(self) -> list[Event]:
        """The events waiting now, taken."""
        taken: list[Event] = []
        while not self._queue.empty():
            taken.append(self._queue.get_nowait())
        return taken
