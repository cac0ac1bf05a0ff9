"""One bound for every tool's output: a share of the model's usable window, counted in tokens.

The agent gives each tool run an OutputBudget (tools/base.py's ToolContext carries it). Tools
that can page (read_file, grep, glob, list_dir, read_archive) fill their output up to it and say
exactly how to get the rest; the registry then checks every result against it, so any tool,
including ones added later, is cut to its first and last lines with the full text kept for
paging (tools/kept_outputs.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Characters per token assumed while a tool sizes its output before counting it: source code and
# logs run 3-4 characters per token under current tokenizers, so 3 keeps a first cut within the
# budget for nearly all text; the exact count (OutputBudget.count) settles the rest.
CHARS_PER_TOKEN = 3
# The budget when no model window is known (a tool run outside an agent, e.g. in a test): about
# 100k characters, the absolute cap pleat's tools had before outputs followed the window.
DEFAULT_OUTPUT_TOKENS = 25_000
# The smallest budget ever given: a tool needs room for a few lines and its note on how to go on.
MIN_OUTPUT_TOKENS = 200
# Share of a cut output kept from its start; the rest comes from its end, where commands put
# their summaries, final errors and test totals.
HEAD_SHARE = 1 / 3
# Tokens set aside for the note a cut output ends with (sizes and how to read the rest).
NOTE_TOKENS = 80


def rough_count(text: str) -> int:
    """A tokenizer-free count that never undercounts ordinary text (the agent passes a real one)."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class OutputBudget:
    """The most tokens one tool result may take, and how to count them."""

    tokens: int = DEFAULT_OUTPUT_TOKENS
    count: Callable[[str], int] = rough_count

    @property
    def chars(self) -> int:
        """Characters a tool may gather before the exact count decides."""
        return self.tokens * CHARS_PER_TOKEN

    def fits(self, text: str) -> bool:
        return len(text) <= self.chars and self.count(text) <= self.tokens

    def minus(self, tokens: int) -> OutputBudget:
        """The budget left after `tokens` are spent elsewhere (a note, a header)."""
        return OutputBudget(max(MIN_OUTPUT_TOKENS // 2, self.tokens - tokens), self.count)


def lines_that_fit(lines: Sequence[str], budget: OutputBudget) -> int:
    """How many leading lines, joined by newlines, fit the budget (binary search on the count)."""
    total = 0
    limit = 0
    for line in lines:  # first by characters: cheap, and an upper bound on what can fit
        total += len(line) + 1
        if total > budget.chars + 1:
            break
        limit += 1
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if budget.count("\n".join(lines[:middle])) <= budget.tokens:
            low = middle
        else:
            high = middle - 1
    return low


def tail_lines_that_fit(lines: Sequence[str], budget: OutputBudget) -> int:
    """How many trailing lines fit the budget."""
    return lines_that_fit(list(reversed(lines)), budget)


def clip_to_budget(text: str, budget: OutputBudget) -> str:
    """A single line or block cut to the budget by characters (for text with no useful lines)."""
    if budget.fits(text):
        return text
    low, high = 0, min(len(text), budget.chars)
    while low < high:
        middle = (low + high + 1) // 2
        if budget.count(text[:middle]) <= budget.tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low]


@dataclass(frozen=True)
class HeadAndTail:
    """A text cut to its first and last lines."""

    head: list[str]
    tail: list[str]
    total_lines: int
    total_bytes: int

    @property
    def omitted_lines(self) -> int:
        return self.total_lines - len(self.head) - len(self.tail)

    @property
    def first_omitted(self) -> int:
        """1-based number of the first line left out."""
        return len(self.head) + 1


def head_and_tail(text: str, budget: OutputBudget) -> HeadAndTail:
    """The first and last lines of `text` within the budget (a third from the start). A single
    line longer than its share is cut by characters."""
    lines = text.split("\n")
    size = len(text.encode("utf-8", "surrogatepass"))
    room = budget.minus(NOTE_TOKENS)
    head_budget = OutputBudget(max(1, int(room.tokens * HEAD_SHARE)), budget.count)
    head_count = lines_that_fit(lines, head_budget)
    head = lines[:head_count]
    if head_count == 0 and lines:
        head = [clip_to_budget(lines[0], head_budget) + " [line cut]"]
        head_count = 1
    spent = budget.count("\n".join(head))
    tail_budget = OutputBudget(max(1, room.tokens - spent), budget.count)
    rest = lines[head_count:]
    tail_count = tail_lines_that_fit(rest, tail_budget)
    tail = rest[len(rest) - tail_count :] if tail_count else []
    if not tail and rest:
        last = rest[-1]
        tail = ["[line cut] " + last[len(last) - len(clip_to_budget(last[::-1], tail_budget)) :]]
    return HeadAndTail(head, tail, len(lines), size)


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


def page_of(items: Sequence[str], skipped: int, budget: OutputBudget, total: int = -1) -> Page:
    """The items from `skipped` on that fit the budget (a note's room kept); a first item too
    long alone is cut. `total` defaults to len(items) (pass it when items is only a window)."""
    room = budget.minus(NOTE_TOKENS)
    items = list(items)
    count = lines_that_fit(items, room)
    shown = items[:count]
    if not shown and items:
        shown = [clip_to_budget(items[0], room) + " [cut]"]
    return Page(shown, skipped, total if total >= 0 else skipped + len(items))


def page_note(page: Page, noun: str, budget: OutputBudget, next_call: str, narrow: str) -> str:
    """The note under a partial listing: which items, of how many, and the exact next call."""
    total = f"{page.total:,}" if page.exact else f"at least {page.total:,}"
    span = f"{noun} {page.skipped + 1:,}-{page.next_offset:,} of {total}"
    if not page.lines:
        return f"[no {noun} past offset={page.skipped:,}: there are {total}]"
    more = page.next_offset < page.total or not page.exact
    fit = f", as many as fit the tool-output budget (~{budget.tokens:,} tokens)" if more else ""
    parts = [f"{span}{fit}"]
    if more:
        parts.append(f"next: {next_call} offset={page.next_offset}")
        parts.append(narrow)
    return "[" + "; ".join(parts) + "]"


def repeat_call(tool: str, args: Mapping[str, Any]) -> str:
    """A call with the same arguments, offset left for the note to add: `glob pattern="*.py"`."""
    shown = " ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}"
        for key, value in args.items()
        if key != "offset"
    )
    return f"{tool} {shown}".rstrip()
