"""Helpers for the sub-agent tests: telling a sub-agent's request apart, and making two meet."""

from __future__ import annotations

import threading
from typing import Any

from agent.subagents.team import SUBAGENT_NOTE

# Seconds the scripted sub-agents wait for each other at their first request: far past the
# moment the second one starts when they run side by side; run one after the other, the first
# waits in vain and the test fails instead of hanging.
MEET_TIMEOUT_SECONDS = 20


def is_subagent(body: dict[str, Any]) -> bool:
    """Whether a request is a sub-agent's (its system prompt carries the sub-agent note)."""
    return SUBAGENT_NOTE in (body["messages"][0].get("content") or "")


class Meeting:
    """Two scripted sub-agents wait for each other here: both pass only if they run side by
    side; `missed` says one waited in vain (they ran one after the other)."""

    def __init__(self) -> None:
        self._barrier = threading.Barrier(2, timeout=MEET_TIMEOUT_SECONDS)
        self.missed = False

    def wait(self) -> None:
        try:
            self._barrier.wait()
        except threading.BrokenBarrierError:
            self.missed = True
