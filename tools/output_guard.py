"""The registry's last check on every tool result: cut to the budget, the full text kept for paging.

Tools that page by themselves (read_file, grep, glob, list_dir, read_archive) already fit their
budget and pass through untouched. Anything else that does not fit (a command's megabyte of
output, a tool added later) keeps its first and last lines; the whole text is stored in the
session (sessions/outputs.py) and the note says how to read the lines in between.
"""

from __future__ import annotations

import contextlib
import dataclasses

from sessions.output_spool import discard, read_spooled
from tools.base import ToolContext, ToolOutput
from tools.kept_output_reader import read_more_call
from tools.output_budget import LINE_PIECE_CHARS, HeadAndTail, head_and_tail

# A kept output's number and line numbers as wide as they can get, for sizing the note before
# the numbers are known.
WIDEST_NUMBER = 9_999_999


def _note(cut: HeadAndTail, kept: int | None, why_not_kept: str) -> str:
    first, last = cut.first_omitted, cut.last_omitted
    unit = f"lines (long ones in {LINE_PIECE_CHARS}-character pieces)" if cut.pieces else "lines"
    sizes = f"{cut.total_lines:,} {unit}, {cut.total_bytes:,} bytes"
    span = f"lines {first:,}-{last:,} of {cut.total_lines:,} were cut to fit the context"
    if kept is not None:
        where = (
            f"the full output ({sizes}) is kept as output {kept}: read it with "
            f"{read_more_call(kept, first)} (line numbers as in the full output)"
        )
    else:
        where = f"the full output ({sizes}) was not kept: {why_not_kept}"
    return f"[{span}; {where}]"


def keep_within_budget(output: ToolOutput, ctx: ToolContext) -> ToolOutput:
    """The output unchanged when it fits ctx.budget; else its first and last lines, a note with
    the sizes and how to get the rest, and meta and facts saying what was cut and where it is
    kept. A spooled output (run_command's, on disk) is read back whole when cut, and its spool
    file removed either way."""
    spooled = output.spooled
    if spooled is None:
        return _within_budget(output, ctx)
    try:
        if not ctx.budget.fits(output.text):
            with contextlib.suppress(OSError):  # unreadable: the in-memory copy stands in
                output = dataclasses.replace(output, text=read_spooled(spooled))
        return dataclasses.replace(_within_budget(output, ctx), spooled=None)
    finally:
        discard(spooled.path)


def _within_budget(output: ToolOutput, ctx: ToolContext) -> ToolOutput:
    budget = ctx.budget
    if budget.fits(output.text):
        return output
    widest = HeadAndTail([], [], WIDEST_NUMBER, WIDEST_NUMBER, 1, WIDEST_NUMBER, True)
    room = budget.count(_note(widest, WIDEST_NUMBER, "")) + 2
    cut = head_and_tail(output.text, budget, note_tokens=room)
    kept: int | None = None
    why_not_kept = "no session to keep it in"
    if ctx.outputs is not None:
        try:
            kept = ctx.outputs.keep(output.text)
        except OSError as error:
            why_not_kept = f"it could not be written: {error.strerror or error}"
    note = _note(cut, kept, why_not_kept)
    text = "\n".join([*cut.head, note, *cut.tail])
    meta = {
        **output.meta,
        "truncated": True,
        "total_lines": cut.total_lines,
        "total_bytes": cut.total_bytes,
        "kept_output": kept,
    }
    facts = dataclasses.replace(output.facts, truncated=True, kept_output=kept)
    return dataclasses.replace(output, text=text, meta=meta, facts=facts)
