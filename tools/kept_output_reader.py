"""Paging through a kept output (a tool result cut to fit, kept whole): read_archive output=N."""

from __future__ import annotations

from typing import Any

from tools.base import ToolContext, ToolError
from tools.output_budget import (
    NOTE_TOKENS,
    OutputBudget,
    clip_to_budget,
    lines_that_fit,
    tail_lines_that_fit,
)

# Characters of one line shown, as read_file shows them (longer ones are cut and marked).
MAX_LINE_CHARS = 2000


def numbered(number: int, line: str, line_chars: int) -> str:
    """One line as shown: its number, a tab, the text (cut when too long)."""
    if len(line) > line_chars:
        line = line[:line_chars] + " [line cut]"
    return f"{number:6}\t{line}"


def last_page_offset(lines: list[str], room: OutputBudget, line_chars: int) -> int:
    """The first line of the last page: the most trailing lines that fit the budget together."""
    total = len(lines)
    window = min(total, room.chars // 7 + 1)  # a shown line takes at least 7 characters
    tail = [numbered(n, lines[n - 1], line_chars) for n in range(total - window + 1, total + 1)]
    return total - max(1, tail_lines_that_fit(tail, room)) + 1


def read_kept_output(
    ctx: ToolContext, number: int, args: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """Lines of kept output `number` from `offset` (1-based), numbered like read_file, as many
    as `limit` and the budget allow, with a note naming the next call."""
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
    lines = text.split("\n")
    total = len(lines)
    if offset > total:
        raise ToolError(f"offset {offset} is past the end of kept output {number} ({total} lines)")
    room = ctx.budget.minus(NOTE_TOKENS)
    line_chars = min(MAX_LINE_CHARS, max(80, room.chars // 4))
    end = total if limit is None else min(total, offset - 1 + limit)
    shown = []
    used = 0
    for index in range(offset - 1, end):
        entry = numbered(index + 1, lines[index], line_chars)
        used += len(entry) + 1
        if shown and used > room.chars:
            break
        shown.append(entry)
    keep = lines_that_fit(shown, room)
    if keep == 0:
        shown = [clip_to_budget(shown[0], room) + " [line cut]"]
        keep = 1
    shown = shown[:keep]
    last = offset + keep - 1
    title = f"[kept output {number} · lines {offset:,}-{last:,} of {total:,}]"
    parts = [title, *shown]
    if last < total:
        end_offset = max(last + 1, last_page_offset(lines, room, line_chars))
        parts.append(
            f"[next: read_archive action=read output={number} offset={last + 1} limit={keep}; "
            f"the last lines: offset={end_offset} limit={total - end_offset + 1}]"
        )
    else:
        parts.append(f"[kept output {number}: the end]")
    meta = {"output": number, "first_line": offset, "last_line": last, "total_lines": total}
    return "\n".join(parts), meta
