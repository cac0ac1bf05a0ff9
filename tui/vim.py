"""Vim keys for the prompt: a state machine over a text and a cursor offset, without a widget.

Insert mode leaves every key to the prompt but Esc, which goes to normal mode. Normal mode reads
counts, the operators d c y with a motion or doubled (dd cc yy), the motions h j k l w b e 0 ^ $
gg G, and x X D C p P u Ctrl+R i a I A o O; Enter submits. A key it does not take is either
swallowed (a character: normal mode types nothing) or left to the prompt and the app (a named
key: the arrows, Ctrl+..., and Esc with nothing pending, which keeps its meaning in the app).
tui/widgets/vim_prompt.py applies what it answers to the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tui.vim_motions import (
    BLANKS,
    clamp_normal,
    first_nonblank,
    last_char,
    line_end,
    line_start,
    row_of,
    row_start,
    rows,
    vertical,
    word_back,
    word_end,
    word_end_here,
    word_forward,
)

Mode = Literal["insert", "normal"]
# How a motion's span is taken by an operator: up to the target, through it, or whole lines.
Span = Literal["exclusive", "inclusive", "linewise"]
MOTIONS = frozenset("hjklwbe0^$G")
OPERATORS = frozenset("dcy")
# A count past this is taken as this: `99999dd` must not loop a hundred thousand times over a
# prompt, and no prompt has more lines or words than this.
MAX_COUNT = 10_000
# The column j and k keep after `$`: past every line's end, so they go to each line's end, as
# vim's does.
LINE_END_COLUMN = 1 << 30


@dataclass(frozen=True)
class Snapshot:
    text: str
    cursor: int


@dataclass(frozen=True)
class Outcome:
    """What a key did: `handled` (the key is taken: nothing else sees it), the text and cursor
    after it, and whether it submits the prompt."""

    handled: bool
    text: str
    cursor: int
    submit: bool = False


@dataclass
class Register:
    """The unnamed register: the last text deleted or yanked, and whether it is whole lines."""

    text: str = ""
    linewise: bool = False


class Vim:
    """One prompt's vim state: the mode, the keys pending (count, operator, `g`), the register,
    and the undo and redo lists (a change in normal mode, or a whole stay in insert mode, is one
    step, as in vim)."""

    def __init__(self, text: str = "", cursor: int = 0) -> None:
        self.mode: Mode = "insert"
        self.register = Register()
        self.undos: list[Snapshot] = []
        self.redos: list[Snapshot] = []
        self._count = ""  # digits typed before the operator or the command
        self._op_count = ""  # digits typed after the operator
        self._op: str | None = None
        self._g = False
        self._insert_from = Snapshot(text, cursor)  # the text when insert mode began
        # A count's more times of what insert mode types: (times, where typing began, the text
        # then, what goes before each copy: "\n" for o and O).
        self._repeat: tuple[int, int, str, str] = (0, 0, "", "")
        # The column j and k keep through shorter lines (vim's "curswant"); None: the cursor's.
        self._column: int | None = None

    @property
    def pending(self) -> str:
        """The keys typed of a command not complete yet (shown beside the mode)."""
        return f"{self._count}{self._op or ''}{self._op_count}{'g' if self._g else ''}"

    def forget(self, text: str, cursor: int, mode: Mode | None = None) -> None:
        """The prompt's text was replaced from outside (sent, a history entry, the editor):
        nothing to undo in it; `mode` switches the mode too."""
        self.undos.clear()
        self.redos.clear()
        self._clear()
        self.mode = mode or self.mode
        self._insert_from = Snapshot(text, cursor)

    def feed(self, key: str, text: str, cursor: int) -> Outcome:
        """One key: a character as typed ("w", "$", "G") or Textual's name of a key ("escape",
        "enter", "ctrl+r", "left")."""
        if self.mode == "insert":
            if key != "escape":
                return Outcome(False, text, cursor)
            text, cursor = self._repeated(text, cursor)
            if text != self._insert_from.text:
                self._push(self._insert_from)
            self.mode = "normal"
            self._column = None
            back = cursor - 1 if cursor > line_start(text, cursor) else cursor
            return Outcome(bool(text), text, clamp_normal(text, back))  # empty: Esc's own too
        return self._normal(key, text, cursor)

    def _repeated(self, text: str, cursor: int) -> tuple[str, int]:
        """Leaving insert mode: the text typed, again as many times more as the count said,
        when it was only typed (no moving about, no deleting before where it began)."""
        times, at, before, joint = self._repeat
        self._repeat = (0, 0, "", "")
        typed = text[at:cursor]
        if times <= 0 or not typed or text != before[:at] + typed + before[at:]:
            return text, cursor
        more = (joint + typed) * min(times, MAX_COUNT)
        return text[:cursor] + more + text[cursor:], cursor + len(more)

    # -- normal mode ------------------------------------------------------------------------

    def _normal(self, key: str, text: str, cursor: int) -> Outcome:
        key = {"backspace": "h", "delete": "x"}.get(key, key)
        if key == "escape":
            pending = bool(self.pending)
            self._clear()
            return Outcome(pending, text, cursor)  # nothing pending: Esc's meaning in the app
        if key == "enter":
            self._clear()
            return Outcome(True, text, cursor, submit=True)
        if key == "ctrl+r":
            self._clear()
            return self._undo(text, cursor, self.redos, self.undos)
        if len(key) != 1:
            self._clear()
            return Outcome(False, text, cursor)  # arrows, Ctrl+...: the prompt's own
        if key.isdigit() and (key != "0" or (self._op_count if self._op else self._count)):
            if self._op:
                self._op_count += key
            else:
                self._count += key
            return Outcome(True, text, cursor)
        explicit = bool(self._count or self._op_count)
        count = min(MAX_COUNT, int(self._count or 1) * int(self._op_count or 1))
        op, g = self._op, self._g
        self._g = False
        if key == "g" and not g:
            self._g = True
            return Outcome(True, text, cursor)
        if g and key != "g":
            self._clear()
            return Outcome(True, text, cursor)
        motion = "gg" if g else key
        if motion not in ("j", "k"):
            self._column = None
        past_end = count > 1 and row_of(text, cursor) == rows(text) - 1
        if past_end and (key == op or key in "$DC"):
            self._clear()  # 2dd, 2$, 2D on the last line: no line below to take, as in vim
            return Outcome(True, text, cursor)
        if op is not None:
            self._clear()
            if key == op:
                return self._lines(op, text, cursor, count)
            if motion in MOTIONS or motion == "gg":
                return self._operate(op, motion, text, cursor, count, explicit)
            return Outcome(True, text, cursor)
        if key in OPERATORS:
            self._op = key
            return Outcome(True, text, cursor)
        self._clear()
        if motion in MOTIONS or motion == "gg":
            target, _ = self._motion(motion, text, cursor, count, explicit, operating=False)
            return Outcome(True, text, clamp_normal(text, target))
        return self._command(key, text, cursor, count)

    def _clear(self) -> None:
        self._count = self._op_count = ""
        self._op = None
        self._g = False

    def _motion(
        self, motion: str, text: str, pos: int, count: int, explicit: bool, *, operating: bool
    ) -> tuple[int, Span]:
        """Where `motion` (`count` times) goes from `pos`, and how an operator takes its span."""
        if motion in ("j", "k"):
            if self._column is None:
                self._column = pos - line_start(text, pos)
            step = count if motion == "j" else -count
            return vertical(text, pos, step, self._column), "linewise"
        if motion in ("gg", "G"):
            last = rows(text) - 1
            row = min(count - 1, last) if explicit else (0 if motion == "gg" else last)
            return first_nonblank(text, row_start(text, row)), "linewise"
        if motion == "h":
            return max(line_start(text, pos), pos - count), "exclusive"
        if motion == "l":
            end = line_end(text, pos) if operating else last_char(text, pos)
            return min(end, pos + count), "exclusive"
        if motion == "0":
            return line_start(text, pos), "exclusive"
        if motion == "^":
            return first_nonblank(text, pos), "exclusive"
        if motion == "$":
            end = line_end(text, row_start(text, row_of(text, pos) + count - 1))
            if operating:
                return end, "exclusive"
            self._column = LINE_END_COLUMN  # j and k go on to each line's end
            return max(line_start(text, end), end - 1), "exclusive"
        word = {"w": word_forward, "b": word_back, "e": word_end}[motion]
        target = pos
        for left in range(count - 1, -1, -1):
            if motion == "w" and operating and not left:  # dw stops at the line's end
                target = word_forward(text, target, eol=True)
            else:
                target = word(text, target)
        return target, "inclusive" if motion == "e" else "exclusive"

    def _operate(
        self, op: str, motion: str, text: str, pos: int, count: int, explicit: bool
    ) -> Outcome:
        """`op` over the span of `motion` from the cursor (dw, c$, y2e, dG ...)."""
        if op == "c" and motion == "w" and pos < len(text) and not text[pos].isspace():
            target = word_end_here(text, pos)  # cw changes to the word's end, not past it
            for _ in range(count - 1):
                target = word_end(text, target)
            span: Span = "inclusive"
        else:
            target, span = self._motion(motion, text, pos, count, explicit, operating=True)
        if motion in ("j", "k") and row_of(text, target) == row_of(text, pos):
            return Outcome(True, text, pos)  # dj on the last line, dk on the first: nothing
        start, end = sorted((pos, target))
        if span == "linewise":  # j k gg G
            return self._rows(op, text, start, end)
        last = end if span == "inclusive" else None  # the last row's place, where not end - 1
        if span == "inclusive":
            end = min(len(text), end + 1)
        elif end > start and text[end - 1] == "\n":
            # Vim's rule for an exclusive motion that ends at a line's start (dw over an empty
            # line, db at a line's start): it ends at the line before's end instead, and takes
            # whole lines when only blanks come before its start.
            end = last = end - 1
            if not text[line_start(text, start) : start].strip(BLANKS):
                span = "linewise"
        if span != "linewise" and op == "d" and "\n" in text[start:end]:
            # And d's: over several lines, with only blanks before and after, whole lines.
            if not (text[line_start(text, start) : start] + text[end : line_end(text, end)]).strip(
                BLANKS
            ):
                span = "linewise"
        if span == "linewise":
            return self._rows(op, text, start, max(start, end - 1) if last is None else last)
        self.register = Register(text[start:end], linewise=False)
        if op == "y":
            return Outcome(True, text, clamp_normal(text, start))
        return self._cut(op, text, pos, start, end, "")

    def _rows(self, op: str, text: str, start: int, end: int) -> Outcome:
        """`op` over the whole lines from `start`'s to `end`'s."""
        first, last = row_of(text, start), row_of(text, end)
        return self._lines(op, text, row_start(text, first), last - first + 1)

    def _lines(self, op: str, text: str, pos: int, count: int) -> Outcome:
        """dd cc yy (and an operator with j k gg G): `count` whole lines from the cursor's."""
        first = row_of(text, pos)
        last = min(rows(text) - 1, first + count - 1)
        start, end = row_start(text, first), line_end(text, row_start(text, last))
        self.register = Register(text[start:end] + "\n", linewise=True)
        if op == "y":
            return Outcome(True, text, pos)
        if op == "c":  # the lines become one empty line, to type in
            return self._cut(op, text, pos, start, end, "")
        if end < len(text):
            end += 1  # the line break after the last line goes with them
        elif start > 0:
            start -= 1  # the last lines: the break before them goes
        after = text[:start] + text[end:]
        self._push(Snapshot(text, pos))
        row = min(first, rows(after) - 1)
        return Outcome(True, after, first_nonblank(after, row_start(after, row)))

    def _cut(self, op: str, text: str, pos: int, start: int, end: int, put: str) -> Outcome:
        """Delete text[start:end] (d: staying in normal mode; c: then in insert mode)."""
        after = text[:start] + put + text[end:]
        if op == "c":
            self.mode = "insert"
            self._insert_from = Snapshot(text, pos)  # the change and the typing: one undo
            return Outcome(True, after, start)
        if after != text:
            self._push(Snapshot(text, pos))
        return Outcome(True, after, clamp_normal(after, start))

    def _command(self, key: str, text: str, pos: int, count: int) -> Outcome:
        """The keys that are neither a motion nor an operator."""
        start, end = line_start(text, pos), line_end(text, pos)
        if key in "xX":
            span = (pos, min(end, pos + count)) if key == "x" else (max(start, pos - count), pos)
            if span[0] == span[1]:
                return Outcome(True, text, pos)
            self.register = Register(text[span[0] : span[1]])
            return self._cut("d", text, pos, *span, "")
        if key in "DC":  # d$ and c$, counts and all
            return self._operate("d" if key == "D" else "c", "$", text, pos, count, False)
        if key in "pP":
            return self._put(key == "p", text, pos, count)
        if key == "u":
            outcome = Outcome(True, text, pos)
            for _ in range(count):
                outcome = self._undo(outcome.text, outcome.cursor, self.undos, self.redos)
            return outcome
        inserts = {
            "i": (pos, ""),
            "a": (min(pos + 1, end), ""),
            "I": (start + len(text[start:end]) - len(text[start:end].lstrip(BLANKS)), ""),
            "A": (end, ""),
            "o": (end, "\n"),
            "O": (start, "\n"),
        }
        if key not in inserts:
            return Outcome(True, text, pos)  # not a command: normal mode types nothing
        at, put = inserts[key]
        self.mode = "insert"
        self._insert_from = Snapshot(text, pos)
        after = text[:at] + put + text[at:]
        typing = at + len(put) if key == "o" else at
        # 3ihi<Esc>: what is typed goes in three times (o and O: on three new lines).
        self._repeat = (count - 1, typing, after, "\n" if put else "")
        return Outcome(True, after, typing)

    def _put(self, after_cursor: bool, text: str, pos: int, count: int) -> Outcome:
        """p and P: the register after or before the cursor (whole lines: below or above)."""
        saved = self.register
        if not saved.text:
            return Outcome(True, text, pos)
        if saved.linewise:
            block = saved.text * count
            at = line_end(text, pos) if after_cursor else line_start(text, pos)
            if after_cursor:
                block = "\n" + block[:-1]  # below the line: its break, then the lines
            result = text[:at] + block + text[at:]
            first = at + 1 if after_cursor else at
            self._push(Snapshot(text, pos))
            return Outcome(True, result, first_nonblank(result, first))
        block = saved.text * count
        empty_line = line_start(text, pos) == line_end(text, pos)
        at = pos + 1 if after_cursor and not empty_line else pos
        self._push(Snapshot(text, pos))
        return Outcome(True, text[:at] + block + text[at:], at + len(block) - 1)

    def _push(self, snapshot: Snapshot) -> None:
        self.undos.append(snapshot)
        self.redos.clear()

    def _undo(self, text: str, pos: int, source: list[Snapshot], other: list[Snapshot]) -> Outcome:
        """u (from the undos, onto the redos) or Ctrl+R (the other way): the cursor goes back
        where it was before that change."""
        if not source:
            return Outcome(True, text, pos)
        snapshot = source.pop()
        other.append(Snapshot(text, pos))
        return Outcome(True, snapshot.text, clamp_normal(snapshot.text, snapshot.cursor))
