"""Reads the model already has: a read_file of unchanged lines still in the live context is a note.

A read_file result carries what it read (ResultFacts.read_stamp: the lines asked for, the file's
size and modification time in nanoseconds). A later read of the same path with the same stamp
whose text is exactly that result's text, while that result is still in the live history (not
folded into a summary, not stubbed by a fold or the last rung, not rewound), is answered by a
one-line note naming it instead of the text again. The history is the one the next request
sends, so a fold, /undo or /rewind that took the result away makes the next read a real one.
The text is compared as well as the stamp: a rewrite of the lines shown is always seen, even
one that keeps the size within the same mtime tick; what is not seen is a change outside the
lines shown (or past a cut line's end) that keeps the size and the modification time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from sessions.messages import Message
from tools.result_facts import FACTS_KEY, ReadStamp


class EarlierRead(NamedTuple):
    """The earlier result a read repeats: its message id and the id of the call it answered."""

    message_id: str
    call_id: str


class EarlierReads(Protocol):
    """The read results the model still has (tools.base.ToolContext.reads): read-only."""

    def same_read(self, path: str, stamp: ReadStamp, text: str) -> EarlierRead | None:
        """The newest result still in the live context that read `path` with `stamp` and
        gave exactly `text`, or None."""
        ...


class LiveReads:
    """EarlierReads over a history as the next request sends it (the agent's live history)."""

    def __init__(self, history: Sequence[Message]) -> None:
        self._history = history

    def same_read(self, path: str, stamp: ReadStamp, text: str) -> EarlierRead | None:
        wanted = list(stamp)  # as the message's meta holds it (ResultFacts.to_dict)
        for message in reversed(self._history):
            if message.role != "tool" or message.meta.get("is_error"):
                continue
            facts = message.meta.get(FACTS_KEY)
            if not isinstance(facts, dict) or facts.get("read_stamp") != wanted:
                continue
            if facts.get("files_read") == [path] and message.content == text:
                return EarlierRead(message.id, message.tool_call_id or "")
        return None


def unchanged_note(path: str, earlier: EarlierRead) -> str:
    """What the model reads instead of the text it already has (one line)."""
    return (
        f"[pleat: {path} is unchanged (same size and modification time) since you read these "
        f"lines in message {earlier.message_id} (call {earlier.call_id}); that result is still "
        "in your context and is what this read gives, so it is not repeated. Once it is folded "
        "away or the file changes, read_file shows the text again.]"
    )
