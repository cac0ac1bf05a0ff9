"""Where an agent journals its session: the protocol sessions.store.Session implements."""

from __future__ import annotations

from typing import Any, Protocol

from sessions.messages import Message
from sessions.usage import CallPurpose, Usage


class Recorder(Protocol):
    """Where a session is journaled (sessions.store.Session); `sync` is a safe point."""

    def message(self, message: Message) -> None: ...

    def compaction(self, chunk: int, merged: bool, history: list[Message]) -> None: ...

    def usage(self, model: str, usage: Usage, purpose: CallPurpose = "turn") -> None: ...

    def record(self, record: dict[str, Any]) -> None:
        """A record of another kind (a turn, a checkpoint, a background fold's progress)."""
        ...

    async def sync(self) -> str | None:
        """Flush and fsync; returns the write failure since the last call instead of raising
        it."""
        ...
