"""Vim's motions over a text and a cursor offset: line starts and ends, rows, words (the prompt's
vim keys, tui/vim.py, move and operate with them). Pure functions: no widget, no Textual."""

from __future__ import annotations

# Characters of a line's indentation, for `^` and `I`.
BLANKS = " \t"


def line_start(text: str, pos: int) -> int:
    """The offset of the first character of the line holding `pos`."""
    return text.rfind("\n", 0, pos) + 1


def line_end(text: str, pos: int) -> int:
    """The offset of the line's end: its "\\n", or the text's end on the last line."""
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def last_char(text: str, pos: int) -> int:
    """The rightmost place normal mode's cursor may take on the line (its start when empty)."""
    return max(line_start(text, pos), line_end(text, pos) - 1)


def clamp_normal(text: str, pos: int) -> int:
    """`pos` kept inside the text and off the line's end, as normal mode's cursor is."""
    pos = max(0, min(pos, len(text)))
    return min(pos, last_char(text, pos))


def row_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos)


def rows(text: str) -> int:
    return text.count("\n") + 1


def row_start(text: str, row: int) -> int:
    """The offset where `row` starts (the last row's start past the end)."""
    pos = 0
    for _ in range(max(0, row)):
        newline = text.find("\n", pos)
        if newline < 0:
            break
        pos = newline + 1
    return pos


def first_nonblank(text: str, pos: int) -> int:
    """The line's first character that is not indentation (its last one on a blank line)."""
    start, end = line_start(text, pos), line_end(text, pos)
    at = start
    while at < end and text[at] in BLANKS:
        at += 1
    return min(at, last_char(text, pos))


def vertical(text: str, pos: int, step: int, column: int) -> int:
    """`step` rows down (up when negative), at `column` where the row is long enough."""
    row = max(0, min(rows(text) - 1, row_of(text, pos) + step))
    start = row_start(text, row)
    return min(start + column, last_char(text, start))


def _kind(char: str) -> int:
    """Vim's classes of characters: blank (0), word characters (1), other punctuation (2)."""
    if char.isspace():
        return 0
    return 1 if char.isalnum() or char == "_" else 2


def _empty_line_at(text: str, pos: int) -> bool:
    return (pos == 0 or text[pos - 1] == "\n") and (pos == len(text) or text[pos] == "\n")


def word_forward(text: str, pos: int) -> int:
    """`w`: the start of the next word (an empty line counts as one); the text's end past the
    last."""
    size, at = len(text), pos
    if at < size and not text[at].isspace():
        kind = _kind(text[at])
        while at < size and _kind(text[at]) == kind:
            at += 1
    while at < size and text[at].isspace():
        if at != pos and _empty_line_at(text, at):
            return at
        at += 1
    return at


def word_back(text: str, pos: int) -> int:
    """`b`: the start of this word, or of the one before when already at a start."""
    if pos <= 0:
        return 0
    at = pos - 1
    while at > 0 and text[at].isspace() and not _empty_line_at(text, at):
        at -= 1
    if text[at].isspace():
        return at
    kind = _kind(text[at])
    while at > 0 and _kind(text[at - 1]) == kind:
        at -= 1
    return at


def word_end(text: str, pos: int) -> int:
    """`e`: the last character of this word, or of the next one when already at an end."""
    size, at = len(text), pos + 1
    while at < size and text[at].isspace():
        at += 1
    if at >= size:
        return max(0, min(pos, size - 1)) if size else 0
    kind = _kind(text[at])
    while at + 1 < size and _kind(text[at + 1]) == kind:
        at += 1
    return at


def word_end_here(text: str, pos: int) -> int:
    """The last character of the word under the cursor (`cw` changes up to it, not past)."""
    kind = _kind(text[pos])
    while pos + 1 < len(text) and _kind(text[pos + 1]) == kind:
        pos += 1
    return pos
