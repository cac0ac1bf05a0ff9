"""The registry's last check on every tool result: cut to the budget, the full text kept for paging.

Tools that page by themselves (read_file, grep, glob, list_dir, read_archive) already fit their
budget and pass through untouched. Anything else that does not fit (a command's megabyte of
output, a tool added later) keeps its first and last lines; the whole text is stored in the
session (sessions/outputs.py) and the note says how to read the lines in between.
"""

from __future__ import annotations

import dataclasses

from tools.base import ToolContext, ToolOutput
from tools.output_budget import head_and_tail

# The tool that reads kept outputs back (tools/archive_reader.py defines it under this name).
READER = "read_archive"


def read_more_call(number: int, offset: int) -> str:
    """The exact call that pages a kept output from line `offset`."""
    return f"{READER} action=read output={number} offset={offset}"


def keep_within_budget(output: ToolOutput, ctx: ToolContext) -> ToolOutput:
    """The output unchanged when it fits ctx.budget; else its first and last lines, a note with
    the sizes and how to get the rest, and meta saying what was cut and where it is kept."""
    if ctx.budget.fits(output.text):
        return output
    cut = head_and_tail(output.text, ctx.budget)
    kept: int | None = None
    why_not_kept = "no session to keep it in"
    if ctx.outputs is not None:
        try:
            kept = ctx.outputs.keep(output.text)
        except OSError as error:
            why_not_kept = f"it could not be written: {error.strerror or error}"
    first, last = cut.first_omitted, cut.first_omitted + cut.omitted_lines - 1
    sizes = f"{cut.total_lines:,} lines, {cut.total_bytes:,} bytes"
    if cut.omitted_lines > 0:
        span = f"lines {first:,}-{last:,} of {cut.total_lines:,} were cut to fit the context"
    else:
        span = f"its long lines were cut to fit the context ({cut.total_lines:,} lines)"
    if kept is not None:
        where = (
            f"the full output ({sizes}) is kept as output {kept}: read it with "
            f"{read_more_call(kept, first)} (line numbers as in the full output)"
        )
    else:
        where = f"the full output ({sizes}) was not kept: {why_not_kept}"
    note = f"[{span}; {where}]"
    text = "\n".join([*cut.head, note, *cut.tail]) if cut.tail else "\n".join([*cut.head, note])
    meta = {
        **output.meta,
        "truncated": True,
        "total_lines": cut.total_lines,
        "total_bytes": cut.total_bytes,
        "kept_output": kept,
    }
    return dataclasses.replace(output, text=text, meta=meta)
