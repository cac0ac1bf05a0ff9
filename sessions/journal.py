"""The session journal: one append-only JSONL file; every message, compaction and usage record.

Writes go to a single worker thread in order, so the event loop never blocks on disk; `sync()`
is awaited at each safe point (end of a model reply, each tool result, each compaction) and
returns once everything before it is flushed and fsynced.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessions.goal import GOAL_RECORD, recorded_goal
from sessions.image_ref import ImageRef
from sessions.lineage import Lineage
from sessions.lone_surrogates import encodable, invalid_characters
from sessions.messages import Message, ToolCall
from sessions.redact import KnownSecrets
from sessions.usage import UsageTally

JOURNAL_NAME = "journal.jsonl"
# Transcripts hold code, command output and what the user typed: readable by the user only.
PRIVATE_FILE_MODE = 0o600
# Format version in the header line, for readers of future versions.
FORMAT_VERSION = 1


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class Journal:
    """Appends records to <session>/journal.jsonl through one ordered worker thread."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / JOURNAL_NAME
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
        os.fchmod(fd, PRIVATE_FILE_MODE)
        self._file = os.fdopen(fd, "a", encoding="utf-8")
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pleat-journal")
        self._last: Future[None] | None = None
        # A failed write (disk full, I/O error) since the last sync(), which reports it; a
        # line it cut short is ended before the next one, so only that record is lost.
        self._failure: str | None = None
        self._torn = False
        # Values never written (the configured API key; agent.assemble sets them): a user may
        # paste the key into a prompt, or a tool may read a file holding it.
        self.secrets = KnownSecrets()

    def append(self, record: dict[str, Any]) -> None:
        """Queue one record (written and flushed to the OS in order, off the event loop)."""
        record = self.secrets.value(record)
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        replaced = invalid_characters(line)
        if replaced:  # lone surrogates (model output can hold them) cannot be written as UTF-8
            record = {**record, "replaced_characters": replaced}
            line = encodable(json.dumps(record, ensure_ascii=False, separators=(",", ":"))) + "\n"
        self._last = self._writer.submit(self._write, line)

    def _write(self, line: str) -> None:
        try:
            if self._torn:
                self._file.write("\n")
                self._torn = False
            self._file.write(line)
            self._file.flush()
        except (OSError, ValueError) as error:  # ValueError: an encoding error, a closed file
            self._torn = True
            self._fail(error)

    def _fsync(self) -> None:
        try:
            os.fsync(self._file.fileno())
        except OSError as error:
            self._fail(error)

    def _fail(self, error: OSError | ValueError) -> None:
        if self._failure is None:
            errno = getattr(error, "errno", None)
            why = os.strerror(errno) if errno else str(error)
            self._failure = (
                f"cannot write the session journal {self.path}: {why}; this session will not "
                "resume past this point until the problem is fixed"
            )

    async def sync(self) -> str | None:
        """A safe point: wait until every queued record is on disk (flushed and fsynced).
        Returns the first write failure since the last safe point, or None."""
        await asyncio.wrap_future(self._writer.submit(self._fsync))
        failure, self._failure = self._failure, None
        return failure

    def sync_now(self) -> None:
        """The same, blocking: for shutdown paths outside the event loop."""
        self._writer.submit(self._fsync).result()

    def close(self) -> None:
        self._writer.submit(self._fsync)
        self._writer.shutdown(wait=True)
        self._file.close()

    # -- the record kinds ---------------------------------------------------------------------

    def header(self, **fields: Any) -> None:
        self.append({"type": "session", "v": FORMAT_VERSION, "time": now(), **fields})

    def message(self, message: Message) -> None:
        self.append({"type": "message", "message": message.to_record()})

    def compaction(
        self, *, chunk: int, merged: bool, chunk_state: dict[str, int], history: list[Message]
    ) -> None:
        self.append(
            {
                "type": "compaction",
                "time": now(),
                "chunk": chunk,
                "merged": merged,
                "chunk_state": chunk_state,
                "history": [m.to_record() for m in history],
            }
        )

    def usage(self, model: str, **usage: Any) -> None:
        self.append({"type": "usage", "time": now(), "model": model, **usage})


@dataclass
class Replayed:
    """A session rebuilt from its journal."""

    header: dict[str, Any]
    history: list[Message]
    # The newest chunk as the journal last recorded it: {"number", "messages", "shrunk"}.
    chunk_state: dict[str, int] | None
    messages_total: int = 0  # message records, including folded ones
    torn_lines: int = 0  # lines that did not parse (a write cut by a crash), ignored
    problems: list[str] = field(default_factory=list)
    usage: UsageTally = field(default_factory=UsageTally)  # every model call's usage, summed
    # Turns, checkpoints and rewinds (sessions/lineage.py), and the highest message number.
    lineage: Lineage = field(default_factory=Lineage)
    goal: str | None = None  # the session's goal as its last goal record set it (sessions/goal.py)


# What the model reads for a tool call whose result sat on a damaged journal line (a call left
# open at the very end is answered by Session.resume instead, and that answer is journaled).
LOST_TOOL_RESULT = "lost: the journal line holding this tool call's result was damaged"
# Stands in for the first request when its line was damaged: providers want a user message
# right after the system prompt.
LOST_REQUEST = "[pleat: the first request of this session was lost: its journal line was damaged]"
# The roles a message record may have (sessions.messages.Role).
ROLES = frozenset({"system", "user", "assistant", "tool"})
# Chunk-state fields Session.resume's archive reconciliation reads as integers.
CHUNK_STATE_INTEGERS = ("number", "messages", "shrunk")
# Record kinds sessions/lineage.py reads: turns and checkpoints (a rewind changes the history
# too, and is read here).
LINEAGE_KINDS = frozenset({"turn", "checkpoint", "checkpoint_done"})


class _Damaged(ValueError):
    """A line that parses as JSON but is not a record this version wrote (corruption)."""


def _require(ok: bool, what: str) -> None:
    if not ok:
        raise _Damaged(what)


def _optional_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _checked_images(record: dict[str, Any], dropped: list[str]) -> dict[str, Any]:
    """The record with only the image references this version could have written: a damaged
    one is left out (and said in `dropped`) rather than losing the message's words with it."""
    images = record.get("images") or []
    carriers = ("user", "tool")  # a prompt's images, and those a tool read
    _require(isinstance(images, list) and (not images or record.get("role") in carriers), "images")
    kept = []
    for image in images:
        try:
            ImageRef.from_record(image)
        except ValueError as error:
            dropped.append(str(error))
            continue
        kept.append(image)
    return record if len(kept) == len(images) else {**record, "images": kept}


def _message(record: Any, dropped: list[str] | None = None) -> Message:
    """A message record checked field by field (a damaged one raises _Damaged; a damaged image
    reference is dropped and said in `dropped`)."""
    _require(isinstance(record, dict), "a message that is not an object")
    role, content = record.get("role"), record.get("content")
    _require(role in ROLES, f"unknown role {role!r}")
    _require(isinstance(content, str) or (content is None and role == "assistant"), "content")
    _require(isinstance(record.get("id", ""), str), "id")
    _require(_optional_str(record.get("tool_call_id")) and _optional_str(record.get("name")), "ids")
    _require(isinstance(record.get("meta") or {}, dict), "meta")
    calls = record.get("tool_calls") or []
    _require(isinstance(calls, list) and (not calls or role == "assistant"), "tool calls")
    for call in calls:
        _require(isinstance(call, dict) and isinstance(call.get("id"), str), "tool call id")
        function = call.get("function")
        _require(isinstance(function, dict) and isinstance(function.get("name"), str), "call")
        _require(_optional_str(function.get("arguments")), "tool call arguments")
    blocks = record.get("thinking_blocks") or []
    _require(isinstance(blocks, list) and (not blocks or role == "assistant"), "thinking")
    _require(all(isinstance(b, dict) for b in blocks), "thinking block")
    _require(_optional_str(record.get("reasoning_content")), "reasoning content")
    return Message.from_record(_checked_images(record, [] if dropped is None else dropped))


def checked_message(record: Any) -> Message:
    """A journaled message record checked as a replay checks it (raises ValueError when it is
    damaged; a damaged image reference is left out): for readers of other sessions' journals."""
    return _message(record)


def _chunk_state(value: Any) -> dict[str, Any] | None:
    """The recorded chunk state, checked: {} (a fork of an archive-less session) or numbers."""
    if value is None:
        return None
    _require(isinstance(value, dict), "chunk state")
    if not value:
        return {}
    for key in CHUNK_STATE_INTEGERS:
        number = value.get(key)
        _require(type(number) is int and number >= 0, f"chunk state {key}")
    for key in ("tokens", "merges"):
        _require(key not in value or type(value[key]) is int, f"chunk state {key}")
    _require(isinstance(value.get("topics", ""), str), "chunk state topics")
    return dict(value)


def _mend(history: list[Message]) -> tuple[list[Message], list[str]]:
    """Make a history a provider accepts after damaged lines were skipped: a tool result whose
    call is gone is dropped; a call whose result is gone gets a "lost" result (except at the
    very end, where Session.resume answers it); a lost first request gets a placeholder."""
    mended: list[Message] = []
    notes: list[str] = []
    open_calls: dict[str, ToolCall] = {}
    owner = ""

    def close_open_calls() -> None:
        for number, call in enumerate(open_calls.values(), 1):
            lost = Message(
                role="tool",
                content=LOST_TOOL_RESULT,
                tool_call_id=call.id,
                name=call.name,
                id=f"{owner}-lost-{number}",
                meta={"is_error": True, "lost": True},
            )
            mended.append(lost)
            notes.append(f"the result of tool call {call.name} ({call.id}) was lost")
        open_calls.clear()

    for message in history:
        if message.role == "tool":
            if message.tool_call_id in open_calls:
                del open_calls[message.tool_call_id]
                mended.append(message)
            else:
                notes.append(f"tool result {message.id} lost its call: dropped")
            continue
        close_open_calls()
        if len(mended) == 1 and mended[0].role == "system" and message.role != "user":
            mended.append(Message(role="user", content=LOST_REQUEST, id=f"{mended[0].id}-lost"))
            notes.append("the first request was lost: a placeholder stands in for it")
        mended.append(message)
        if message.role == "assistant":
            open_calls = {call.id: call for call in message.tool_calls}
            owner = message.id
    return mended, notes


def _compaction_history(records: Any, dropped: list[str]) -> list[Message]:
    """A compaction's recorded history, checked: it must be one this version could write."""
    _require(isinstance(records, list) and bool(records), "compaction history")
    history = [_message(record, dropped) for record in records]
    _require(history[0].role == "system", "compaction history without its system prompt")
    ids = [m.id for m in history]
    _require(len(set(ids)) == len(ids), "compaction history with repeated ids")
    mended, _ = _mend(history)
    # Compared by id, not by length: a damaged call id drops one result and adds a "lost" one.
    _require([m.id for m in mended] == ids, "compaction history with unpaired tool calls")
    return history


def replay_journal(path: Path, stop_before: str | None = None) -> Replayed:
    """Rebuild the live history: messages appended in order, each compaction (or rewind of the
    conversation) replacing the history with the one it recorded. A torn, corrupt or
    inconsistent line is skipped and reported, and the history is mended around what it held
    (see _mend). With `stop_before`, the replay stops at that message: the history as it was
    just before it was added (a rewind to a folded turn). Raises only OSError."""
    header: dict[str, Any] = {}
    history: list[Message] = []
    live_ids: set[str] = set()
    chunk_state: dict[str, int] | None = None
    total = torn = 0
    problems: list[str] = []
    usage = UsageTally()
    lineage = Lineage()
    goal: str | None = None
    with path.open("r", encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, 1):
            dropped: list[str] = []
            try:
                record = json.loads(line)
                _require(isinstance(record, dict), "a record that is not an object")
                kind = record.get("type")
                if kind == "session" and not header:
                    header = record
                elif kind == "message":
                    message = _message(record.get("message"), dropped)
                    _require(message.id not in live_ids, f"message id {message.id} repeated")
                    if message.id == stop_before:
                        break
                    history.append(message)
                    live_ids.add(message.id)
                    lineage.message(message, number)
                    total += 1
                elif kind == "usage":
                    usage.add_record(record)
                elif kind == "compaction":
                    recorded = _compaction_history(record.get("history"), dropped)
                    chunk_state = _chunk_state(record.get("chunk_state"))
                    history, live_ids = recorded, {m.id for m in recorded}
                    lineage.seen(recorded)
                elif kind == "rewind":  # the chunk state stays: no chunk is set aside
                    rewound = record.get("history")
                    _require((rewound is None) == (record.get("scope") == "files"), "rewind")
                    went_back = None if rewound is None else _compaction_history(rewound, dropped)
                    lineage.rewind(record)
                    if went_back is not None:
                        history, live_ids = went_back, {m.id for m in went_back}
                elif kind in LINEAGE_KINDS:
                    lineage.apply(kind, record, number)
                elif kind == GOAL_RECORD:
                    goal = recorded_goal(record)
            except (ValueError, KeyError, TypeError, RecursionError):
                # ValueError covers JSONDecodeError and _Damaged; RecursionError: absurd nesting.
                lineage.damaged(number)
                torn += 1
                problems.append(f"line {number} of {path.name} is damaged and was skipped")
                continue
            if dropped:
                problems.append(
                    f"line {number} of {path.name}: {len(dropped)} damaged image reference"
                    f"{'' if len(dropped) == 1 else 's'} left out ({dropped[0]})"
                )
    # Always mended, not only after a torn line: damage can leave valid JSON that hides a
    # message inside another record (two lines run together), with no line failing to parse.
    history, notes = _mend(history)
    problems += notes
    return Replayed(header, history, chunk_state, total, torn, problems, usage, lineage, goal)
