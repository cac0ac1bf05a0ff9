"""Catching the archive index up with the files: each journal from where it was last read,
each chunk file again when it changed, a session gone from disk taken out."""

# A session is looked at again only when its journal's (inode, size, mtime) or its chunks
# folder's mtime (a chunk is written by a rename into it) differ from what the index last saw:
# a stat or two per session, so a warm catch-up over 10,000 sessions costs tens of
# milliseconds. A journal is read from the offset past its last whole line; one that shrank or
# was replaced is read again from the start. Every session is updated inside a write
# transaction that first reads the session's row again, so two processes catching up at once
# never index the same lines twice.

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sessions.archive import CHUNK_NAME
from sessions.archive_query import message_fields
from sessions.chunk_format import parse_chunk, read_text
from sessions.journal import checked_message
from sessions.messages import Message
from sessions.paths import is_session_id
from sessions.session_summary import JournalSummary
from sessions.workspace_sessions import (
    MAX_LINE_BYTES,
    MESSAGE_LINE,
    Unreadable,
    open_journal,
    searched,
)

CHUNKS_DIR = "chunks"  # sessions/store.py's name for a session's chunk folder
JOURNAL = "journal.jsonl"  # sessions/journal.py's JOURNAL_NAME
# A catch-up's write transaction ends after this many journal and chunk bytes or this many
# seconds, whichever comes first, so another process waits a fraction of a second for its turn
# (a slow disk or a starved process reads 32 MiB in seconds); commits still cost little.
BATCH_BYTES = 32 * 1024 * 1024
BATCH_SECONDS = 0.2
# Characters of an oversized line (past MAX_LINE_BYTES, not indexed) still counted for the
# session list: enough for its record type and role.
COUNTED_PREFIX_CHARS = 4_096
# Bytes a changed chunk folder counts for in a catch-up's estimate: a chunk file is a few to
# some hundreds of kilobytes.
CHUNK_CHANGE_BYTES = 256 * 1024
# What a chunk row's record is wrapped in, the shape of a journal's message line.
MESSAGE_TYPE = "message"


@dataclass(frozen=True)
class DiskState:
    """What a session's files look like now: its journal (inode, size, mtime; -1 for a journal
    that is not a regular file of its own) and its chunks folder's mtime (0: none)."""

    ino: int
    size: int
    mtime_ns: int
    chunks_mtime_ns: int


def entry_text(message: Message) -> str:
    """What the full-text index holds of a message: every field a query searches."""
    return "\n".join(text for _, text in message_fields(message))


def record_message(record: str) -> Message:
    """The message of a stored entry (a journal's message line). Raises ValueError."""
    try:
        return checked_message(json.loads(record)["message"])
    except (KeyError, TypeError, RecursionError) as error:
        raise ValueError(str(error)) from None


def _disk_state(directory: str) -> DiskState:
    """The state of the session folder `directory` (a string: this runs for every session
    at every catch-up, and paths as strings cost a fraction of Path objects)."""
    try:
        chunks = os.stat(f"{directory}/{CHUNKS_DIR}", follow_symlinks=False).st_mtime_ns
    except OSError:
        chunks = 0
    try:
        found = os.stat(f"{directory}/{JOURNAL}", follow_symlinks=False)
    except OSError:
        return DiskState(-1, 0, 0, chunks)
    if not stat.S_ISREG(found.st_mode):
        return DiskState(-1, 0, found.st_mtime_ns, chunks)
    return DiskState(found.st_ino, found.st_size, found.st_mtime_ns, chunks)


def _on_disk(root: Path) -> dict[str, DiskState]:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return {}
    return {
        entry.name: _disk_state(entry.path)
        for entry in entries
        if entry.is_dir(follow_symlinks=False) and is_session_id(entry.name)
    }


def _insert(
    conn: sqlite3.Connection, values: tuple[int, int, int, int, str, str], text: str
) -> None:
    cursor = conn.execute(
        "INSERT OR IGNORE INTO entries (sid, chunk, original, seq, msg_id, record) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        values,
    )
    if cursor.rowcount:
        conn.execute("INSERT INTO texts (rowid, text) VALUES (?, ?)", (cursor.lastrowid, text))


def _forget(conn: sqlite3.Connection, where: str, params: tuple[int, ...]) -> None:
    """Take entries out of the index (the full-text rows are taken out with the text they
    were added with, rebuilt from the stored record)."""
    rows = conn.execute(f"SELECT id, record FROM entries WHERE {where}", params).fetchall()
    for rowid, record in rows:
        try:
            text = entry_text(record_message(record))
        except ValueError:  # never stored: a record is checked before it is added
            continue
        conn.execute(
            "INSERT INTO texts (texts, rowid, text) VALUES ('delete', ?, ?)", (rowid, text)
        )
    conn.execute(f"DELETE FROM entries WHERE {where}", params)


def _lines(journal: IO[bytes]) -> Iterator[tuple[bytes | None, int]]:
    """(whole line or None when oversized, its bytes) up to the last newline."""
    while True:
        line = journal.readline(MAX_LINE_BYTES + 1)
        if not line.endswith(b"\n"):
            if len(line) <= MAX_LINE_BYTES:
                return  # the end, or a line still being written: read again next time
            read = len(line)
            while (rest := journal.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                read += len(rest)
            if not rest:
                return
            yield None, read + len(rest)
            continue
        yield line, len(line)


class _Session:
    """One session's row, read inside the write transaction that updates it."""

    def __init__(self, conn: sqlite3.Connection, session_id: str) -> None:
        self.conn = conn
        row = conn.execute(
            "SELECT key, ino, size, mtime_ns, chunks_mtime_ns, offset, seq, summary "
            "FROM sessions WHERE id = ?",
            (session_id,),
        ).fetchone()
        self.key: int | None = row[0] if row else None
        self.seen = DiskState(*row[1:5]) if row else None
        self.offset: int = row[5] if row else 0
        self.seq: int = row[6] if row else 0
        self.summary = JournalSummary()
        if row:
            try:
                self.summary = JournalSummary.from_json(row[7])
            except ValueError:
                self.seen, self.offset, self.seq = None, 0, 0

    def journal(self, directory: Path, now: DiskState) -> int:
        """Index the journal's new lines; returns the bytes read."""
        assert self.key is not None
        if self.seen is None or now.ino != self.seen.ino or now.size < self.offset:
            _forget(self.conn, "sid = ? AND chunk = 0", (self.key,))
            self.summary, self.offset, self.seq = JournalSummary(), 0, 0
        if now.ino < 0:
            return 0
        read = 0
        try:
            with open_journal(directory) as journal:
                journal.seek(self.offset)
                for line, size in _lines(journal):
                    read += size
                    self.offset += size
                    self._line(line)
        except (OSError, Unreadable):
            pass  # listed as damaged by what was read; read again when it changes
        return read

    def _line(self, line: bytes | None) -> None:
        if line is None:
            return
        text = line.decode("utf-8", errors="replace")
        self.summary.feed(text if len(text) <= MAX_LINE_BYTES else text[:COUNTED_PREFIX_CHARS])
        if self.summary.header is None or not line.startswith(MESSAGE_LINE):
            return
        try:
            message = record_message(text)
        except ValueError:
            return
        if searched(message):
            self.seq += 1
            values = (self.key, 0, 0, self.seq, message.id, text.rstrip("\n"))
            _insert(self.conn, values, entry_text(message))  # type: ignore[arg-type]

    def chunks(self, directory: Path) -> tuple[int, int]:
        """Index the chunk files that changed; returns (chunk files, bytes read)."""
        assert self.key is not None
        known = {
            number: (mtime, size)
            for number, mtime, size in self.conn.execute(
                "SELECT number, mtime_ns, size FROM chunk_files WHERE sid = ?", (self.key,)
            )
        }
        found: dict[int, tuple[int, int]] = {}
        try:
            names = [(CHUNK_NAME.match(e.name), e) for e in os.scandir(directory / CHUNKS_DIR)]
        except OSError:
            names = []
        read = 0
        for match, entry in names:
            if match is None or not entry.is_file(follow_symlinks=False):
                continue
            number, info = int(match.group(1)), entry.stat(follow_symlinks=False)
            found[number] = (info.st_mtime_ns, info.st_size)
            if known.get(number) != found[number]:
                read += info.st_size
                self._chunk(number, Path(entry.path), found[number])
        for number in set(known) - set(found):
            _forget(self.conn, "sid = ? AND chunk = ?", (self.key, number))
            self.conn.execute(
                "DELETE FROM chunk_files WHERE sid = ? AND number = ?", (self.key, number)
            )
        return len(found), read

    def _chunk(self, number: int, path: Path, seen: tuple[int, int]) -> None:
        assert self.key is not None
        _forget(self.conn, "sid = ? AND chunk = ?", (self.key, number))
        self.conn.execute(
            "INSERT OR REPLACE INTO chunk_files VALUES (?, ?, ?, ?)", (self.key, number, *seen)
        )
        try:
            _, folded, shrunk = parse_chunk(read_text(path))
        except (OSError, ValueError):
            return  # skipped, as the chunk list skips it; indexed again when it changes
        parts = ((0, folded), (1, shrunk))
        for seq, (original, message) in enumerate((o, m) for o, ms in parts for m in ms):
            record = {"type": MESSAGE_TYPE, "message": message.to_record()}
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
            values = (self.key, number, original, seq, message.id, line)
            _insert(self.conn, values, entry_text(message))


def _update(conn: sqlite3.Connection, root: Path, session_id: str, now: DiskState) -> int:
    """Bring one session's rows up to `now`; returns the bytes read."""
    session = _Session(conn, session_id)
    if session.seen == now:
        return 0  # another process caught it up meanwhile
    if session.key is None:
        cursor = conn.execute(
            "INSERT INTO sessions (id, ino, size, mtime_ns, chunks_mtime_ns, offset, seq, "
            "summary, last_active, messages, turns, chunks) VALUES (?, -1, 0, 0, 0, 0, 0, '', "
            "0, 0, 0, 0)",
            (session_id,),
        )
        session.key = cursor.lastrowid
    directory = root / session_id
    read = session.journal(directory, now)
    chunks = conn.execute("SELECT chunks FROM sessions WHERE key = ?", (session.key,)).fetchone()[0]
    if session.seen is None or now.chunks_mtime_ns != session.seen.chunks_mtime_ns:
        chunks, more = session.chunks(directory)
        read += more
    summary, header = session.summary, session.summary.header or {}
    damaged = summary.damaged
    if now.ino < 0:
        damaged = "its journal is not a regular file" if now.mtime_ns else "it has no journal"
    elif header == {} and damaged is None:
        damaged = "its journal is empty"
    workspace, parent = header.get("workspace"), header.get("parent")
    conn.execute(
        "UPDATE sessions SET workspace = ?, damaged = ?, ino = ?, size = ?, mtime_ns = ?, "
        "chunks_mtime_ns = ?, offset = ?, seq = ?, summary = ?, last_active = ?, started = ?, "
        "parent = ?, kind = ?, name = ?, first_request = ?, messages = ?, turns = ?, "
        "prompts = ?, chunks = ? WHERE key = ?",
        (
            workspace if isinstance(workspace, str) and damaged is None else None,
            damaged,
            now.ino,
            now.size,
            now.mtime_ns,
            now.chunks_mtime_ns,
            session.offset,
            session.seq,
            summary.to_json(),
            now.mtime_ns / 1e9,
            str(header.get("time", "?")),
            parent if isinstance(parent, str) else None,
            "subagent" if header.get("kind") == "subagent" else None,
            summary.name,
            summary.first_request,
            summary.messages,
            summary.turns,
            summary.prompts_text,
            chunks,
            session.key,
        ),
    )
    return read


def _bytes_behind(seen: DiskState | None, now: DiskState) -> int:
    """Journal bytes a catch-up reads for one session: what grew since it was seen (all of it
    when new, replaced or shrunk; a chunk folder's change counts a little)."""
    if seen is None or seen.ino != now.ino or now.size < seen.size:
        return max(now.size, 0)
    return (
        now.size
        - seen.size
        + (CHUNK_CHANGE_BYTES if seen.chunks_mtime_ns != now.chunks_mtime_ns else 0)
    )


class TooMuchToCatchUp(Exception):
    """The index lags the files by more than the caller would read now."""


def catch_up(
    conn: sqlite3.Connection,
    root: Path,
    stopped: Callable[[], bool],
    most_bytes: int | None = None,
) -> None:
    """Bring the index up to the session folders under `root` (stops early once `stopped()`,
    keeping what it committed: the next catch-up goes on from there). Raises TooMuchToCatchUp,
    before writing anything, when that means reading more than `most_bytes` of journals."""
    disk = _on_disk(root)
    known = {
        row[0]: DiskState(*row[1:])
        for row in conn.execute("SELECT id, ino, size, mtime_ns, chunks_mtime_ns FROM sessions")
    }
    gone = [session_id for session_id in known if session_id not in disk]
    changed = [sid for sid, now in disk.items() if known.get(sid) != now]
    if not gone and not changed:
        return
    if most_bytes is not None:
        behind = sum(_bytes_behind(known.get(sid), disk[sid]) for sid in changed)
        if behind > most_bytes:
            raise TooMuchToCatchUp(f"the archive index is {behind:,} bytes behind")
    conn.execute("BEGIN IMMEDIATE")
    try:
        for session_id in gone:
            row = conn.execute("SELECT key FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row:
                _forget(conn, "sid = ?", (row[0],))
                conn.execute("DELETE FROM chunk_files WHERE sid = ?", (row[0],))
                conn.execute("DELETE FROM sessions WHERE key = ?", (row[0],))
        batch, began = 0, time.monotonic()
        for session_id in changed:
            if stopped():
                break
            batch += _update(conn, root, session_id, disk[session_id])
            if batch >= BATCH_BYTES or time.monotonic() - began >= BATCH_SECONDS:
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
                batch, began = 0, time.monotonic()
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
