"""Idle compaction (Clacky's): fold while the user is away and the provider's cache is warm."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent.turn.loop import Agent

# After a turn, once no key has been pressed for `idle_compaction_seconds` and the context is
# past IDLE_MARK_SHARE of the fold threshold, the conversation is folded in the background
# (reason "idle"): one cached call now instead of an uncached one later, and the next request
# starts small. Any keypress cancels it (a commit under way finishes first, see
# agent.turn.uninterruptible). One idle fold per pause at most: only the next turn or session switch
# arms the timer again.

# Idle folding starts at half the threshold: below that the next turns have room enough and an
# early fold would trade verbatim detail for nothing; from there on, the context is big enough
# that a fold frees a real share of it (min_gain) while the cache is still warm. Waiting for the
# threshold itself would fold mid-turn, the case idle folding exists to avoid.
IDLE_MARK_SHARE = 0.5


def idle_fold_worthwhile(agent: Agent) -> bool:
    """The context is past the idle mark, automatic folding is not paused, and a fold would
    free at least the policy's minimum gain (so it will not end paused at once)."""
    compactor = agent.compactor
    if compactor is None:
        return False
    history, tokens, budget = agent.history, compactor.tokens, compactor.budget
    size = tokens.size(history)
    if compactor.suspended_below is not None and size < compactor.suspended_below:
        return False
    if size < IDLE_MARK_SHARE * budget.trigger_tokens:
        return False
    folded = compactor.foldable_tokens(history)
    return folded > 0 and folded >= compactor.policy.min_gain * size


class Timers(Protocol):
    """What the watch needs of the app: one-shot timers (textual's set_timer)."""

    def set_timer(self, delay: float, callback: Callable[[], object]) -> object: ...


class IdleWatch:
    """Calls `fire` once the user has been idle `seconds` since the watch was armed (0: never).
    Keypresses only move a timestamp; the one pending timer re-checks when it expires."""

    def __init__(self, timers: Timers, seconds: float, fire: Callable[[], None]) -> None:
        self.timers = timers
        self.seconds = seconds
        self.fire = fire
        self.armed = False
        self._last = time.monotonic()
        self._pending = False

    def activity(self) -> None:
        self._last = time.monotonic()

    def arm(self) -> None:
        """Start waiting for a pause (after a turn, or when a session is opened)."""
        if self.seconds <= 0:
            return
        self.armed = True
        self._last = time.monotonic()
        self._schedule(self.seconds)

    def disarm(self) -> None:
        self.armed = False

    def _schedule(self, delay: float) -> None:
        if not self._pending:
            self._pending = True
            self.timers.set_timer(delay, self._check)

    def _check(self) -> None:
        self._pending = False
        if not self.armed:
            return
        remaining = self.seconds - (time.monotonic() - self._last)
        if remaining > 0:
            self._schedule(remaining)
            return
        self.armed = False
        self.fire()
