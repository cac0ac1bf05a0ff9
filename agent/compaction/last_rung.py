"""The last rung of the ladder, applied: stub the largest tool results when a request cannot
fit even after folding (the plan and the stubs: agent/compaction/shrink.py), and say why when
nothing can make it fit."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from agent.compaction.fold_parts import archive_failure
from agent.compaction.shrink import apply_shrink, plan_shrink
from agent.events import CompactionDone, CompactionFailed, Event, FoldReason
from sessions.messages import Message

if TYPE_CHECKING:
    from agent.compaction.engine import Compactor


async def shrink_to_fit(
    compactor: Compactor, history: list[Message], *, reason: FoldReason, unread_too: bool = True
) -> Event | None:
    """Archive the largest tool results verbatim and stub them until the request fits
    (agent/compaction/shrink.py; `unread_too`: the newest results as well). CompactionDone
    (method "shrink") with the new history, CompactionFailed when the archive cannot be
    written, None when nothing can shrink."""
    started = time.monotonic()
    before = compactor.tokens.estimate(history)  # the same measure as the size after
    excess = compactor.excess(history)
    plan = plan_shrink(history, compactor.tokens.count, excess, unread_too=unread_too)
    if not plan.indices:
        return None
    originals = [history[index] for index in plan.indices]
    chunks = compactor.archive.chunks()
    topics = chunks[-1].topics if chunks else "tool outputs too large for the context window"
    write = compactor.archive.merge_into_last if chunks else compactor.archive.write_chunk
    try:
        chunk = await asyncio.to_thread(write, [], topics=topics, tokens=0, shrunk=originals)
    except OSError as error:
        why = archive_failure(compactor.archive.directory, error)
        return CompactionFailed(reason, f"could not shrink tool results: {why}")
    compactor.step("archived")
    new_history = apply_shrink(history, plan, chunk.number, "did not fit the context window")
    for message in originals:
        compactor.tokens.forget(message)
    compactor.tokens.reset_report()
    return CompactionDone(
        reason=reason,
        chunk=chunk.number,
        topics=chunk.topics,
        merged=bool(chunks) and chunk.number == chunks[-1].number,
        method="shrink",
        folded_messages=0,
        tokens_before=before,
        tokens_after=compactor.tokens.estimate(new_history),
        messages_before=len(history),
        messages_after=len(new_history),
        prompt_tokens=0,
        cached_tokens=0,
        seconds=time.monotonic() - started,
        suspended=False,
        history=new_history,
        shrunk_messages=len(originals),
    )


def request_too_big(compactor: Compactor, history: list[Message]) -> bool:
    """Whether the user's own message alone leaves no room: without it, the system prompt and
    the tool schemas would fit (then the message, not the setup, is what must go)."""
    system = compactor.tokens.count(history[0]) if history else 0
    tools = compactor.tokens.scaled(compactor.tokens.tools_tokens)
    return system + tools + compactor.margin <= compactor.budget.usable


def too_small(compactor: Compactor, history: list[Message]) -> str | None:
    """Why no request can fit, when the system prompt, the tool schemas and the user's own
    message alone need more than the window allows (which part to cut included); None
    when they fit (then folding and shrinking can always make room)."""
    system = compactor.tokens.count(history[0]) if history else 0
    tools = compactor.tokens.scaled(compactor.tokens.tools_tokens)
    request = next(
        (m for m in reversed(history) if m.role == "user" and not m.meta.get("injected")),
        None,
    )
    own = compactor.tokens.count(request) if request is not None else 0
    budget = compactor.budget
    margin = compactor.margin
    if system + tools + own + margin <= budget.usable:
        return None
    parts = {
        "your message": own,
        "the system prompt (with AGENTS.md or CLAUDE.md, and the auto memory: /memory)": system,
    }
    biggest = max(parts, key=lambda name: parts[name])
    advice = f"shorten {biggest}" if parts[biggest] > tools else "use a larger model"
    return (
        f"context window exceeded: the system prompt ({system:,} tokens), the tool schemas "
        f"({tools:,}) and your message ({own:,}) alone need more than the "
        f"{budget.usable - margin:,} tokens this model's {budget.window:,}-token window "
        f"leaves after {budget.window - budget.usable:,} for the reply and a margin; {advice}"
    )
