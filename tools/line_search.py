"""Which lines a pattern matches, searched a block of lines per run instead of line by line."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence

from sessions.bounded_regex import Deadline, Pattern

# Lines joined into one run of the pattern: each bounded run costs a few microseconds of set-up
# (about ten times a plain `re` search of a short line), so a line per run made grep several
# times slower; a block of 2,000 lines (~100 KB of code) makes the set-up negligible.
BLOCK_LINES = 2_000
# Constructs whose meaning changes when lines are joined: `\A`, `\Z` and `\z` anchor at the
# start or end of the whole text, and a lookaround at a line's ends would see the neighbouring
# line's break. Patterns using them are run one line at a time (correct, only slower).
_JOIN_SENSITIVE = re.compile(r"\\[AZz]|\(\?<?[=!]")


def matches_per_line(pattern_text: str) -> bool:
    """Whether a pattern must be run one line at a time (see _JOIN_SENSITIVE)."""
    return _JOIN_SENSITIVE.search(pattern_text) is not None


def matching_lines(
    pattern: Pattern, lines: Sequence[str], deadline: Deadline, *, per_line: bool = False
) -> Iterator[tuple[int, int]]:
    """(index in `lines`, start of the match in that line) for each line the pattern matches,
    as if each line were searched on its own. `pattern` must be compiled multiline, so `^` and
    `$` match at each line's ends. Raises PatternTooSlow when the deadline passes."""
    if per_line:
        for index, line in enumerate(lines):
            match = deadline.search(pattern, line)
            if match is not None:
                yield index, match.start()
        return
    text = "\n".join(lines)
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    pos = 0
    while pos <= len(text):
        match = deadline.search(pattern, text, pos)
        if match is None:
            return
        index = bisect.bisect_right(starts, match.start()) - 1
        line_end = starts[index] + len(lines[index])
        if match.end() <= line_end:
            yield index, match.start() - starts[index]
        else:  # the match runs into the next line: ask the line alone
            alone = deadline.search(pattern, lines[index])
            if alone is not None:
                yield index, alone.start()
        pos = line_end + 1  # one match per line is enough: go on at the next line
