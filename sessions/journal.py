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

from agent.messages import Message

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

    def append(self, record: dict[str, Any]) -> None:
        """Queue one record (written and flushed to the OS in order, off the event loop)."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._last = self._writer.submit(self._write, line)

    def _write(self, line: str) -> None:
        self._file.write(line)
        self._file.flush()

    def _fsync(self) -> None:
        os.fsync(self._file.fileno())

    async def sync(self) -> None:
        """A safe point: wait until every queued record is on disk (flushed and fsynced)."""
        await asyncio.wrap_future(self._writer.submit(self._fsync))

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


def replay_journal(path: Path) -> Replayed:
    """Rebuild the live history: messages appended in order, each compaction replacing the
    history with the one it recorded. A torn or corrupt line is skipped and reported."""
    header: dict[str, Any] = {}
    history: list[Message] = []
    chunk_state: dict[str, int] | None = None
    total = torn = 0
    problems: list[str] = []
    with path.open("r", encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                kind = record["type"]
                if kind == "session" and not header:
                    header = record
                elif kind == "message":
                    history.append(Message.from_record(record["message"]))
                    total += 1
                elif kind == "compaction":
                    history = [Message.from_record(m) for m in record["history"]]
                    chunk_state = record.get("chunk_state")
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                torn += 1
                problems.append(f"line {number} of {path.name} is damaged and was skipped")
    return Replayed(header, history, chunk_state, total, torn, problems)
