"""How early a background fold must start to be ready at the threshold: the context's growth
per second and the compression call's time, both measured in this session (issue: folds nobody
waits for, in any window)."""

from __future__ import annotations

import time
from collections.abc import Callable

# Weight of the newest measure in the running averages of growth and call time: a half lets a
# session that speeds up (a build, then quick reads) be followed within two or three steps,
# while one odd step moves the estimate only half way.
NEWEST_WEIGHT = 0.5
# The lead is this many times the growth expected during a compression call: calls vary (a
# provider under load, a longer summary), and starting a little early costs only a slightly
# smaller verbatim tail, while starting late makes the turn wait.
SAFETY = 1.5
# Seconds between two checks past which the time is not counted as growth time: a step (a local
# model's reply on a CPU, a long build) can take minutes, but past half an hour the machine slept
# or the turn was left waiting for an answer. The pause between turns is never counted: a new
# request starts the measure afresh (agent/compaction/early.py).
IDLE_SECONDS = 1_800.0


class FoldLead:
    """The tokens a background fold needs ahead of the threshold; None until the session has
    shown both its growth and a compression call's time."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last: tuple[float, int] | None = None  # (time, size) at the last check
        self._rate: float | None = None  # tokens a second, averaged
        self._step: float = 0.0  # tokens a step adds, averaged
        self._call: float | None = None  # seconds of a compression call, averaged
        # The session was told its window is too small for folds to be ready in time (once).
        self.said_small = False

    def observe(self, size: int) -> None:
        """The context's size before a model call: its growth since the last check is measured
        (a smaller size is a fold or a rewind: the measure starts again from it)."""
        now = self._clock()
        last, self._last = self._last, (now, size)
        if last is None or size <= last[1]:
            return
        seconds, grown = now - last[0], size - last[1]
        self._step = average(self._step or None, grown)
        if 0 < seconds <= IDLE_SECONDS:
            self._rate = average(self._rate, grown / seconds)

    def restart(self) -> None:
        """A fold was applied: growth is measured afresh from the next check (the time the
        turn waited for the fold, if it did, is not growth time)."""
        self._last = None

    def call_took(self, seconds: float) -> None:
        """A compression call's wall time (a fold's summarize, in the background or not)."""
        self._call = average(self._call, seconds)

    @property
    def call_seconds(self) -> float | None:
        return self._call

    def tokens(self) -> int | None:
        """Tokens the context grows by while a compression call runs (with SAFETY), plus one
        step (a fold starts and is swapped in only between steps); None while not known."""
        if self._rate is None or self._call is None:
            return None
        return int(self._rate * self._call * SAFETY + self._step)


def average(old: float | None, new: float) -> float:
    """The running average with the newest measure weighted NEWEST_WEIGHT."""
    return new if old is None else old + NEWEST_WEIGHT * (new - old)
