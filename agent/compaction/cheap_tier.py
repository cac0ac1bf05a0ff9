"""Step 9's cheap tier, run only inside a compaction: shrink stale big tool outputs in the kept
tail to stubs citing their archived copy, and keep only the newest result of repeated calls."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from agent.compaction.shrink import shrink_stub
from sessions.messages import Message, ToolCall
from tools.result_facts import ResultFacts

# The facts of a result that has none (journaled before tools reported facts).
_NONE = ResultFacts()


def _calls_by_id(messages: Sequence[Message]) -> dict[str, ToolCall]:
    return {c.id: c for m in messages if m.role == "assistant" for c in m.tool_calls}


def shrink_tail(
    tail: Sequence[Message],
    *,
    chunk: int,
    stale_chars: int,
    fresh_results: int,
    unread: AbstractSet[str] = frozenset(),
) -> tuple[list[Message], list[Message]]:
    """(new tail, originals of the messages that were shrunk). Ids are kept, so a stub's
    message id is the id the archive holds its full text under. The newest `fresh_results`
    and the `unread` ones (results the model has not read yet) are never shrunk."""
    calls = _calls_by_id(tail)
    results = [i for i, m in enumerate(tail) if m.role == "tool"]
    fresh = set(results[-fresh_results:]) if fresh_results else set()
    fresh |= {i for i in results if tail[i].id in unread}
    # read_file's notes (tools/rereads.py): one line each, kept as they are; the result a note
    # names holds the text, so a note never supersedes it.
    notes = {i for i in results if (ResultFacts.of_message(tail[i].meta) or _NONE).unchanged_of}
    newest_by_call: dict[tuple[str, str], int] = {}
    for index in results:
        call = calls.get(tail[index].tool_call_id or "")
        if call is not None and index not in notes:
            newest_by_call[(call.name, call.arguments)] = index
    new_tail: list[Message] = []
    shrunk: list[Message] = []
    for index, message in enumerate(tail):
        call = calls.get(message.tool_call_id or "") if message.role == "tool" else None
        if "shrunk_to_chunk" in message.meta or index in notes:
            call = None  # already a stub (its original is archived in that chunk), or a note
        text = message.content or ""
        stub: str | None = None
        superseded = (
            newest_by_call.get((call.name, call.arguments), index) != index if call else False
        )
        if call is not None and index not in fresh and superseded:
            newer = tail[newest_by_call[(call.name, call.arguments)]].id
            stub = (
                f"[pleat: superseded: {call.name} was called again with the same arguments; "
                f"its newer result is message {newer}. This one is archived in chunk {chunk} "
                f"as message {message.id}.]"
            )
        elif call is not None and index not in fresh and len(text) > stale_chars:
            stub = shrink_stub(message, chunk, "was shrunk in a fold (already read)")
        if stub is None:
            new_tail.append(message)
        else:
            shrunk.append(message)
            meta = {**message.meta, "shrunk_to_chunk": chunk}
            # A stub's images go with its text: the archived original keeps them.
            stub_message = dataclasses.replace(message, content=stub, meta=meta, images=())
            new_tail.append(stub_message)
    return new_tail, shrunk
