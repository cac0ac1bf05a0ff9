"""One bound for every tool's output: a share of the model's usable window, counted in tokens.

The agent gives each tool run an OutputBudget (tools/base.py's ToolContext carries it). Tools
that can page (read_file, grep, glob, list_dir, read_archive) fill their output, note included,
up to it and say exactly how to get the rest; the registry then checks every result against it
(tools/output_guard.py), so any tool, including ones added later, is cut to its first and last
lines with the full text kept for paging (sessions/outputs.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tools.output_limits import DEFAULT_OUTPUT_TOKENS, MIN_OUTPUT_TOKENS

# Characters per token gathered before the exact count trims: no text worth reading runs more
# than 5 characters per token (English prose about 4.5, code 3-4), so gathering this many never
# leaves a budget underfilled; the count then keeps what fits.
GATHER_CHARS_PER_TOKEN = 5
# Characters per token when nothing is counted afterwards (read_archive's pages must keep their
# numbering from call to call): code and logs run 3-4, so 3 stays within the budget for nearly
# all text; what does not (dense Unicode) is cut by the registry's check and kept for paging.
SAFE_CHARS_PER_TOKEN = 3
# Share of a cut output kept from its start; the rest comes from its end, where commands put
# their summaries, final errors and test totals.
HEAD_SHARE = 1 / 3
# Tokens set aside for the note of a cut output while sizing its parts (the exact fit is then
# checked with the note in place).
NOTE_TOKENS = 80
# Bytes of the longest token of o200k_base and cl100k_base, the encodings pleat counts with:
# a text of more characters than this many per token of a budget is over it without counting
# (an exact count of a command's 8 MiB output takes seconds; this takes nothing).
MAX_TOKEN_BYTES = 128
# Lines longer than this are numbered and paged in pieces of this many characters (a minified
# bundle or a JSON reply on one line stays reachable to its end); a piece fits any budget.
LINE_PIECE_CHARS = 500


def rough_count(text: str) -> int:
    """A tokenizer-free count that never undercounts ordinary text (the agent passes a real one)."""
    return -(-len(text) // SAFE_CHARS_PER_TOKEN)


@dataclass(frozen=True)
class OutputBudget:
    """The most tokens one tool result may take, and how to count them."""

    tokens: int = DEFAULT_OUTPUT_TOKENS
    count: Callable[[str], int] = rough_count

    @property
    def gather_chars(self) -> int:
        """Characters a tool may gather before the exact count decides what fits."""
        return self.tokens * GATHER_CHARS_PER_TOKEN

    @property
    def safe_chars(self) -> int:
        """Characters that fit for nearly all text, when no count follows."""
        return self.tokens * SAFE_CHARS_PER_TOKEN

    def fits(self, text: str) -> bool:
        if len(text) > self.tokens * MAX_TOKEN_BYTES:  # each token is at most that many bytes
            return False
        return self.count(text) <= self.tokens

    def minus(self, tokens: int) -> OutputBudget:
        """The budget left after `tokens` are spent elsewhere (a note, a header)."""
        return OutputBudget(max(MIN_OUTPUT_TOKENS // 2, self.tokens - tokens), self.count)


def numbered(number: int, text: str, line_chars: int) -> str:
    """One line as read_file and kept outputs show it: number, tab, text (cut when too long)."""
    if len(text) > line_chars:
        text = text[:line_chars] + " [line cut]"
    return f"{number:6}\t{text}"


def line_chars_for(budget: OutputBudget, most: int) -> int:
    """Characters of one shown line: at most `most`, and a quarter of the budget, so that a few
    lines and a note always fit."""
    return min(most, max(80, budget.safe_chars // 4))


def split_long_lines(text: str, width: int = LINE_PIECE_CHARS) -> list[str]:
    """The text's lines, each longer than `width` split into pieces of `width` characters."""
    pieces: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            pieces.append(line)
        else:
            pieces += [line[i : i + width] for i in range(0, len(line), width)]
    return pieces


def largest_fitting(limit: int, render: Callable[[int], str], budget: OutputBudget) -> int:
    """The most items k in [1, limit] whose rendering (items and note) fits the budget, by a
    binary search on the exact count; 1 when even one does not (the caller cuts it)."""
    low, high = 1, max(1, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if budget.fits(render(middle)):
            low = middle
        else:
            high = middle - 1
    return low


def lines_that_fit(lines: Sequence[str], budget: OutputBudget) -> int:
    """How many leading lines, joined by newlines, fit the budget (0 if not even one)."""
    total = 0
    limit = 0
    for line in lines:  # first by characters: cheap, and an upper bound on what can fit
        total += len(line) + 1
        if total > budget.gather_chars + 1:
            break
        limit += 1
    if limit == 0 or not budget.fits(lines[0]):
        return 0
    return largest_fitting(limit, lambda k: "\n".join(lines[:k]), budget)


def tail_lines_that_fit(lines: Sequence[str], budget: OutputBudget) -> int:
    """How many trailing lines fit the budget."""
    return lines_that_fit(list(reversed(lines)), budget)


def clip_to_budget(text: str, budget: OutputBudget) -> str:
    """A single line or block cut to the budget by characters (for text with no useful lines)."""
    if budget.fits(text):
        return text
    low, high = 0, min(len(text), budget.gather_chars)
    while low < high:
        middle = (low + high + 1) // 2
        if budget.count(text[:middle]) <= budget.tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low]


@dataclass(frozen=True)
class HeadAndTail:
    """A text cut to its first and last lines (long lines counted in pieces)."""

    head: list[str]
    tail: list[str]
    total_lines: int
    total_bytes: int
    first_omitted: int  # 1-based number of the first line not shown whole
    last_omitted: int  # and of the last one
    pieces: bool  # long lines were split into pieces of LINE_PIECE_CHARS


def head_and_tail(text: str, budget: OutputBudget, note_tokens: int = NOTE_TOKENS) -> HeadAndTail:
    """The first and last lines of `text` within the budget, less `note_tokens` for the note
    between them (a third from the start). A line only partly shown counts as cut, so the range
    named for reading is complete."""
    lines = split_long_lines(text)
    size = len(text.encode("utf-8", "surrogatepass"))
    room = budget.minus(note_tokens)
    head_budget = OutputBudget(max(1, int(room.tokens * HEAD_SHARE)), budget.count)
    head_count = lines_that_fit(lines, head_budget)
    head = lines[:head_count]
    first_omitted = head_count + 1
    if head_count == 0 and lines:
        head = [clip_to_budget(lines[0], head_budget) + " [line cut]"]
        first_omitted = 1
        head_count = 1
    spent = budget.count("\n".join(head))
    tail_budget = OutputBudget(max(1, room.tokens - spent), budget.count)
    rest = lines[head_count:]
    tail_count = tail_lines_that_fit(rest, tail_budget)
    tail = rest[len(rest) - tail_count :] if tail_count else []
    last_omitted = len(lines) - tail_count
    if not tail and rest:
        end = rest[-1]
        shown = clip_to_budget(end[::-1], tail_budget)[::-1]
        tail = ["[line cut] " + shown]
    pieces = len(lines) != text.count("\n") + 1
    return HeadAndTail(head, tail, len(lines), size, first_omitted, last_omitted, pieces)


@dataclass(frozen=True)
class Page:
    """One page of a listing (paths, entries, matches): the items shown and where they sit."""

    lines: list[str]
    skipped: int  # items before the first one shown (the `offset` asked for)
    total: int  # items in the whole listing (or counted so far, when `exact` is False)
    exact: bool = True

    @property
    def complete(self) -> bool:
        return self.skipped == 0 and len(self.lines) >= self.total and self.exact

    @property
    def next_offset(self) -> int:
        return self.skipped + len(self.lines)


def page_text(
    items: Sequence[str],
    skipped: int,
    budget: OutputBudget,
    note: Callable[[Page], str],
    *,
    total: int,
    exact: bool = True,
) -> tuple[Page, str]:
    """The items from `skipped` on (`items` starts there) that fit the budget together with the
    note the page then needs; a first item too long alone is cut."""
    candidates = list(items[: max(1, budget.gather_chars // 2)])  # an item takes 2+ characters

    def render(count: int) -> str:
        page = Page(candidates[:count], skipped, total, exact)
        lines = page.lines if page.complete else [*page.lines, note(page)]
        return "\n".join(lines)

    if not candidates:
        page = Page([], skipped, total, exact)
        return page, note(page)
    count = largest_fitting(len(candidates), render, budget)
    if not budget.fits(render(count)):  # one item too long for the budget with its note
        room = budget.minus(budget.count(note(Page(candidates[:1], skipped, total, exact))))
        candidates = [clip_to_budget(candidates[0], room) + " [cut]"]
        count = 1
    return Page(candidates[:count], skipped, total, exact), render(count)


def page_note(page: Page, noun: str, budget: OutputBudget, next_call: str, narrow: str) -> str:
    """The note under a partial listing: which items, of how many, and the exact next call."""
    total = f"{page.total:,}" if page.exact else f"at least {page.total:,}"
    if not page.lines:
        if not page.exact:
            return f"[counting stopped at {page.total:,} {noun}; {narrow}]"
        return f"[no {noun} past offset={page.skipped:,}: there are {total}]"
    span = f"{noun} {page.skipped + 1:,}-{page.next_offset:,} of {total}"
    if page.next_offset >= page.total:
        if page.exact:
            return f"[{span}]"
        return f"[{span}: counting stopped there; {narrow}]"
    parts = [
        f"{span}, as many as fit the tool-output budget (~{budget.tokens:,} tokens)",
        f"next: {next_call} offset={page.next_offset}",
        f"or {narrow}",
    ]
    return "[" + "; ".join(parts) + "]"


def repeat_call(tool: str, args: Mapping[str, Any]) -> str:
    """A call with the same arguments, offset left for the note to add: `glob pattern="*.py"`."""
    shown = " ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}"
        for key, value in args.items()
        if key != "offset"
    )
    return f"{tool} {shown}".rstrip()
