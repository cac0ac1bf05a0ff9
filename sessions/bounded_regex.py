"""Regexes written by the model or the user, run under a time limit so none can hold pleat.

Python's `re` backtracks without bound and holds the interpreter while it does: `(a+)+$` on a
line of forty a's and a "!" runs for minutes, and nothing (not Esc, not a cancelled task) can
stop it. Every pattern that comes from outside pleat is compiled with the `regex` package
instead (in its `re`-compatible VERSION0 mode) and every run gets the time left of one budget
per search: past it, `PatternTooSlow` says so in one line. Runs also release the interpreter
lock while they match, so the TUI keeps drawing during a long search.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import regex

# Seconds of matching one search may spend in all (every line of every file of one grep call,
# or every message of one archive search). A reasonable pattern over a large repository matches
# in well under a second; one that needs ten is backtracking, and more time will not save it.
PATTERN_TIME_BUDGET_SECONDS = 10.0
# Characters of a pattern: far more than any pattern worth typing; it bounds what compiling
# one may cost (counted repeats like `(a{999}){999}` grow with the text of the pattern).
MAX_PATTERN_CHARS = 1_000

Pattern = Any  # regex.Pattern[str]: the package ships no type information
Match = Any  # regex.Match[str]


class PatternTooSlow(Exception):
    """A pattern ran past its time budget: it backtracks too much to finish."""


def compile_pattern(text: str, *, ignore_case: bool = False, multiline: bool = False) -> Pattern:
    """Compile `text` with `re`'s syntax and meaning; raises ValueError with one line on a
    pattern that is too long or invalid. `multiline`: `^` and `$` also match at line breaks."""
    if len(text) > MAX_PATTERN_CHARS:
        raise ValueError(
            f"the pattern is {len(text):,} characters, more than {MAX_PATTERN_CHARS:,}"
        )
    flags = regex.VERSION0 | (regex.IGNORECASE if ignore_case else 0)
    flags |= regex.MULTILINE if multiline else 0
    try:
        return regex.compile(text, flags)
    except (regex.error, OverflowError, RecursionError, MemoryError) as exc:
        raise ValueError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


def too_slow_message(seconds: float) -> str:
    """What the model or the user reads when a pattern ran out of time."""
    return (
        f"the pattern took more than {seconds:g} s to match and was stopped: it backtracks "
        "(nested repeats like (a+)+ or (a|aa)+); make it more specific"
    )


class Deadline:
    """The time left to one search, shared by all of its runs."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = PATTERN_TIME_BUDGET_SECONDS if seconds is None else seconds
        self._end = time.monotonic() + self.seconds

    def remaining(self) -> float:
        """Seconds left; raises PatternTooSlow once none are."""
        left = self._end - time.monotonic()
        if left <= 0:
            raise PatternTooSlow(too_slow_message(self.seconds))
        return left

    def search(self, pattern: Pattern, text: str, pos: int = 0) -> Match | None:
        """`pattern.search(text, pos)` within the time left."""
        try:
            return pattern.search(text, pos, timeout=self.remaining(), concurrent=True)
        except TimeoutError:
            raise PatternTooSlow(too_slow_message(self.seconds)) from None

    def finditer(self, pattern: Pattern, text: str) -> Iterator[Match]:
        """`pattern.finditer(text)` within the time left (for all of its matches together)."""
        try:
            yield from pattern.finditer(text, timeout=self.remaining(), concurrent=True)
        except TimeoutError:
            raise PatternTooSlow(too_slow_message(self.seconds)) from None
