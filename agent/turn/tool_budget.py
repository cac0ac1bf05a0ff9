"""The context a tool run gets: its output bounded by the model's window, shared in a reply, and
a read-only view of the read results the model still has (tools/rereads.py)."""

from __future__ import annotations

import dataclasses

from agent.compaction.engine import Compactor
from sessions.messages import Message
from tools.base import ToolContext
from tools.output_budget import OutputBudget
from tools.output_limits import MIN_OUTPUT_TOKENS
from tools.rereads import LiveReads

# Parallel calls of one reply share one result's budget, down to this fraction of it each: a
# reply of many reads then still fits the window, and a few reads each get a useful page.
PARALLEL_SHARE_FLOOR = 4


def tool_context(
    base: ToolContext, compactor: Compactor | None, history: list[Message], calls: int = 1
) -> ToolContext:
    """`base` with a budget for one of the `calls` of a reply (each gets at least a quarter of
    a whole result's budget: past that, the last rung shrinks what does not fit); unchanged
    without a compactor (no window known). A whole result is the policy's share of the window,
    or less in a small window: no more than fits once a fold has made room (the system prompt,
    the tools and a summary stay), so the model reads it unstubbed. The reads of `history` (the
    live one) are the tool's to see: an unchanged re-read of what it holds is a note."""
    base = dataclasses.replace(base, reads=LiveReads(history))
    if compactor is None:
        return base
    room = max(MIN_OUTPUT_TOKENS, compactor.result_room(history))
    whole = min(compactor.budget.tool_output_tokens, room)
    share = max(whole // max(1, calls), whole // PARALLEL_SHARE_FLOOR, MIN_OUTPUT_TOKENS)
    budget = OutputBudget(min(whole, share), compactor.count_text)
    return dataclasses.replace(base, budget=budget, page_tokens=whole)
