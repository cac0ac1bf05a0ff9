"""Paging through a kept output (a tool result cut to fit, kept whole): read_archive output=N.

Lines are numbered as the cut note numbered them: long lines count as pieces of
LINE_PIECE_CHARS characters (tools/output_budget.py), so every character of a one-line megabyte
is reachable by line number, and no piece is too long for a page.
"""

from __future__ import annotations

from typing import Any

from tools.base import ToolContext, ToolError
from tools.output_budget import (
    LINE_PIECE_CHARS,
    NOTE_TOKENS,
    largest_fitting,
    numbered,
    split_long_lines,
    tail_lines_that_fit,
)

# The tool that reads archived messages and kept outputs back (tools/archive_reader.py).
READER_TOOL_NAME = "read_archive"


def read_more_call(number: int, offset: int, limit: int | None = None) -> str:
    """The exact call that pages kept output `number` from line `offset`."""
    call = f"{READER_TOOL_NAME} action=read output={number} offset={offset}"
    return call if limit is None else f"{call} limit={limit}"


def read_kept_output(
    ctx: ToolContext, number: int, args: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """Lines of kept output `number` from `offset` (1-based), numbered like read_file, as many
    as `limit` and the budget allow, with a note naming the next call and the last lines."""
    if ctx.outputs is None:
        raise ToolError("this session keeps no tool outputs")
    offset = int(args.get("offset", 1))
    limit = int(args.get("limit", 0)) or None
    if offset < 1 or (limit is not None and limit < 1):
        raise ToolError("offset and limit must be at least 1")
    try:
        text = ctx.outputs.read(number)
    except FileNotFoundError:
        raise ToolError(f"there is no kept output {number} in this session") from None
    except OSError as error:
        raise ToolError(f"kept output {number} cannot be read: {error.strerror or error}") from None
    lines = split_long_lines(text)
    total = len(lines)
    if offset > total:
        raise ToolError(f"offset {offset} is past the end of kept output {number} ({total} lines)")
    budget = ctx.budget
    end = total if limit is None else min(total, offset - 1 + limit)
    shown: list[str] = []
    used = 0
    for index in range(offset - 1, end):  # gather what could fit; the exact count trims below
        shown.append(numbered(index + 1, lines[index], LINE_PIECE_CHARS))
        used += len(shown[-1]) + 1
        if used > budget.gather_chars:
            break
    room = budget.minus(NOTE_TOKENS)
    tail_window = min(total, room.gather_chars // 7 + 1)  # a shown line takes 7+ characters
    tail = [
        numbered(n, lines[n - 1], LINE_PIECE_CHARS)
        for n in range(total - tail_window + 1, total + 1)
    ]
    last_page = total - max(1, tail_lines_that_fit(tail, room)) + 1

    def render(count: int) -> str:
        last = offset + count - 1
        parts = [f"[kept output {number} · lines {offset:,}-{last:,} of {total:,}]"]
        parts += shown[:count]
        if last < total:
            end_offset = max(last + 1, last_page)
            parts.append(
                f"[next: {read_more_call(number, last + 1, count)}; the last lines: "
                f"offset={end_offset} limit={total - end_offset + 1}]"
            )
        else:
            parts.append(f"[kept output {number}: the end]")
        return "\n".join(parts)

    count = largest_fitting(len(shown), render, budget)
    last = offset + count - 1
    meta = {"output": number, "first_line": offset, "last_line": last, "total_lines": total}
    return render(count), meta
