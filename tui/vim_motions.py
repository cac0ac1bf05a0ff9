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


def _class_at(text: str, pos: int) -> int:
    """The class of the character at `pos`; a line's end and the text's end are blanks."""
    return _kind(text[pos]) if pos < len(text) else 0


def _step(text: str, pos: int) -> tuple[int, int]:
    """One character on, as vim's inc_cursor: the new place, and 0 (on the same line), 2 (onto
    the line's end), 1 (onto the next line) or -1 (at the text's end: not moved)."""
    if pos >= len(text):
        return pos, -1
    if text[pos] == "\n":
        return pos + 1, 1
    return pos + 1, 2 if pos + 1 == len(text) or text[pos + 1] == "\n" else 0


def word_forward(text: str, pos: int, *, eol: bool = False) -> int:
    """`w`: the start of the next word (an empty line counts as one); the text's end past the
    last. `eol` (an operator's last word, vim's special case): stop at the line's end instead of
    going on to the next line's first word."""
    last_line = text.find("\n", pos) < 0
    kind = _class_at(text, pos)
    at, moved = _step(text, pos)  # always at least one character on
    if moved == -1 or (moved >= 1 and last_line) or (moved >= 1 and eol):
        return at
    if kind != 0:
        while _class_at(text, at) == kind:
            at, moved = _step(text, at)
            if moved == -1 or (moved >= 1 and eol):
                return at
    while _class_at(text, at) == 0 and not _empty_line_at(text, at):
        at, moved = _step(text, at)
        if moved == -1 or (moved >= 1 and eol):
            return at
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
    if at >= size:  # no word ends after this one: the text's last place, as vim goes
        return max(pos, clamp_normal(text, size))
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
