"""Steps 5 and 6 of a fold: archive the folded messages verbatim, then rebuild the history around
the summary message (agent/compaction/engine.py runs them in its commit)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from agent.compaction.cheap_tier import shrink_tail
from agent.compaction.fold_parts import Fold
from agent.compaction.ledger import Ledger, update_ledger
from agent.compaction.policy import CompactionPolicy
from agent.compaction.rebuild import rebuild, summary_message
from agent.model.tokens import TokenLedger
from agent.permissions.plan_mode import accepted_plan
from sessions.archive import ChunkArchive, ChunkInfo
from sessions.messages import Message, is_summary, unread_results
from sessions.redact import redact
from tools.todo_list import current_todos


class Archivist(Protocol):
    """What the steps read of the engine: its policy, token counts and the secrets to redact."""

    policy: CompactionPolicy
    tokens: TokenLedger
    secrets: tuple[str, ...]


async def archive_and_rebuild(
    history: list[Message],
    fold: Fold,
    measure: Archivist,
    archive: ChunkArchive,
    new_id: Callable[[], str],
    step: Callable[[str], None],
    goal: str | None = None,
) -> tuple[list[Message], ChunkInfo, bool, int, int]:
    """Write the folded messages to the archive (durable before anything else changes), then
    rebuild the history: system + summary message (with the session's `goal`) + the kept tail +
    what was pulled back. Returns the new history, the chunk, whether it merged into the last
    one, and how many messages were folded and shrunk."""
    split, reply = fold.split, fold.reply
    chunks = archive.chunks()
    folded = split.folded(history)
    # A stub from an earlier fold has its original archived already: not written twice.
    fresh = [m for m in folded if "shrunk_to_chunk" not in m.meta]
    merged = bool(chunks) and (reply.continues_previous or not fresh)
    number = chunks[-1].number if merged else (chunks[-1].number + 1 if chunks else 1)
    tail, shrunk = shrink_tail(
        split.tail(history),
        chunk=number,
        stale_chars=measure.policy.stale_tool_output_chars,
        fresh_results=measure.policy.fresh_tool_results,
        unread=unread_results(history),
    )
    topics = redact(reply.topics, measure.secrets)
    tokens = sum(measure.tokens.count(m) for m in folded)
    write = archive.merge_into_last if merged else archive.write_chunk
    # Durable on disk before the history changes (a worker thread: fsync blocks).
    chunk = await asyncio.to_thread(write, fresh, topics=topics, tokens=tokens, shrunk=shrunk)
    step("archived")
    head = history[1] if len(history) > 1 and is_summary(history[1]) else None
    # A summary from a damaged or hand-edited journal may lack its ledger: start a new one.
    previous_ledger = Ledger.from_dict(head.meta.get("ledger")) if head is not None else None
    summary = summary_message(
        summary=redact(reply.summary, measure.secrets),
        ledger=update_ledger(previous_ledger, folded, known_secrets=measure.secrets),
        current=chunk,
        previous=archive.chunks(),
        request_budget_chars=measure.policy.request_budget_chars,
        method=fold.method,
        todos=current_todos(history),  # the task list, word for word (not the model's)
        goal=goal,
        plan=accepted_plan(history),  # the plan the user accepted, word for word
    )
    summary.id = new_id()
    for message in shrunk:
        measure.tokens.forget(message)
    new_history = rebuild(history[0], summary, tail, split.pulled_back(history))
    return new_history, chunk, merged, len(folded), len(shrunk)
