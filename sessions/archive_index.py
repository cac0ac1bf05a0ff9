"""The archive index: a SQLite FTS5 file in the data directory, a cache of every session's
journal and chunks, opened caught up, and rebuilt by itself when missing or damaged."""

# The journals and chunk files stay the only record: the index holds a copy of what they hold
# (so nothing a journal redacted), and losing it loses nothing. Several pleat processes share
# it: WAL lets readers run beside one writer, and a writer waits its turn (the busy timeout).
# Each use catches the index up with the files first (sessions/index_sync.py), so it needs no
# hook in the writers and a process that died mid-write leaves nothing to mend.

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sessions.index_sync import TooMuchToCatchUp, catch_up
from sessions.paths import data_home, private_dir

INDEX_NAME = "archive-index.sqlite3"
# Taken while the index file is thrown away and made again, so two processes finding it
# damaged at once do not rebuild it over each other.
REBUILD_LOCK_NAME = "archive-index.lock"
# The layout below; a file of another version is rebuilt (it is only a cache).
SCHEMA_VERSION = 1
# Seconds a process waits for another's write to end before giving up on the index for this
# use (and reading the journals instead): a catch-up commits every few megabytes, far sooner.
BUSY_TIMEOUT_SECONDS = 10.0
# What a use that may not build (a session list) accepts instead: a second's wait for another
# process's write, and a catch-up of at most this many journal bytes (about a second's
# reading); past either, the journals are listed directly (seconds for 10,000 sessions, not the
# minutes of a first build or a long wait for a starved background indexer).
LISTING_BUSY_SECONDS = 1.0
LISTING_CATCH_UP_BYTES = 16 * 1024 * 1024
# Seconds between tries when sqlite says "busy" without waiting by itself.
BUSY_RETRY_SECONDS = 0.05
# The index holds what the journals hold: the user's only, like them.
INDEX_FILE_MODE = 0o600
# What the caller shows, once, after the index was made again from the files.
REBUILT_NOTICE = "archive index rebuilt ({count} session{s})"
# sqlite's words for "another process holds the lock": the index is busy, not damaged.
BUSY_WORDS = ("locked", "busy")

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    workspace TEXT,
    damaged TEXT,
    ino INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    chunks_mtime_ns INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    summary TEXT NOT NULL,
    last_active REAL NOT NULL,
    started TEXT, parent TEXT, kind TEXT, name TEXT, first_request TEXT,
    messages INTEGER NOT NULL, turns INTEGER NOT NULL, prompts TEXT, chunks INTEGER NOT NULL
);
CREATE INDEX sessions_by_workspace ON sessions (workspace, last_active);
CREATE TABLE chunk_files (
    sid INTEGER NOT NULL, number INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL, PRIMARY KEY (sid, number)
);
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    sid INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    original INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    msg_id TEXT NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (sid, chunk, original, msg_id)
);
CREATE VIRTUAL TABLE texts USING fts5(text, content='', detail=none, tokenize='trigram');
"""

T = TypeVar("T")


class IndexUnavailable(Exception):
    """The index cannot be used now (busy past the timeout, a read-only or full disk): the
    caller reads the files instead."""


class IndexNotBuilt(IndexUnavailable):
    """No index of this version is there yet, and the caller would rather read the files than
    build one now (a first build reads every journal: minutes for a year of sessions)."""


def index_path() -> Path:
    return data_home() / INDEX_NAME


def _discard(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def _version(conn: sqlite3.Connection) -> str | None:
    """The schema version the file records; None for a file without one (a new file)."""
    tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'meta'").fetchone()
    if not tables[0]:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    return str(row[0]) if row else ""


def _connect(path: Path, busy_seconds: float = BUSY_TIMEOUT_SECONDS) -> sqlite3.Connection:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, INDEX_FILE_MODE)
    os.fchmod(fd, INDEX_FILE_MODE)
    os.close(fd)
    conn = sqlite3.connect(path, timeout=busy_seconds, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn


def _fresh(path: Path, force: bool = False) -> sqlite3.Connection:
    """The index made new under the rebuild lock: a file another process made meanwhile (its
    version readable and right) is kept, unless `force` (it was found damaged inside)."""
    fd = os.open(path.with_name(REBUILD_LOCK_NAME), os.O_RDWR | os.O_CREAT, INDEX_FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if not force:
            conn = _connect(path)
            try:
                if _version(conn) == str(SCHEMA_VERSION):
                    return conn
            except sqlite3.DatabaseError as error:
                conn.close()
                if _busy(error):
                    raise
            else:
                conn.close()
        _discard(path)
        conn = _connect(path)
        conn.executescript(f"BEGIN IMMEDIATE;{SCHEMA}COMMIT;")
        conn.execute("INSERT INTO meta VALUES ('version', ?)", (str(SCHEMA_VERSION),))
        return conn
    finally:
        os.close(fd)


def _busy(error: sqlite3.Error) -> bool:
    return any(word in str(error).lower() for word in BUSY_WORDS)


def _open(path: Path, build: bool) -> tuple[sqlite3.Connection, str | None]:
    """The index, and why it was made new now ("missing", "damaged") or None. Without `build`,
    an index that would have to be made new raises IndexNotBuilt instead."""
    missing = not path.exists()
    if missing and not build:
        raise IndexNotBuilt("the archive index is not built yet")
    conn = _connect(path, BUSY_TIMEOUT_SECONDS if build else LISTING_BUSY_SECONDS)
    try:
        if _version(conn) == str(SCHEMA_VERSION):
            return conn, None
    except sqlite3.DatabaseError as error:  # "file is not a database", a malformed page
        if _busy(error):
            conn.close()
            raise
    conn.close()
    if not build:
        raise IndexNotBuilt("the archive index is not built yet")
    return _fresh(path), "missing" if missing else "damaged"


def use_index(
    work: Callable[[sqlite3.Connection], T],
    stopped: Callable[[], bool] = lambda: False,
    *,
    build: bool = True,
) -> tuple[T, str | None]:
    """Runs `work` on the index caught up with every session's files; returns its result and
    the one-line notice to show when the index was rebuilt (None otherwise: a missing index
    of a data directory with no session yet is simply made). A file found damaged on the way
    (even mid-query) is rebuilt and the work done again. Raises IndexUnavailable when the index
    cannot be used now (busy past the timeout, stopped while waiting, a path it cannot hold);
    without `build`, IndexNotBuilt when it would have to be made, or caught up far, first."""
    path = index_path()
    why: str | None = None
    attempt = 0
    busy_until = time.monotonic() + (BUSY_TIMEOUT_SECONDS if build else LISTING_BUSY_SECONDS)
    while True:
        try:
            private_dir(path.parent)
            if attempt == 0:
                conn, why = _open(path, build)
            else:
                conn, why = _fresh(path, force=True), "damaged"
            try:
                most = None if build else LISTING_CATCH_UP_BYTES
                catch_up(conn, path.parent / "sessions", stopped, most)
                result = work(conn)
                count = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
            finally:
                conn.close()
        except TooMuchToCatchUp as error:
            raise IndexNotBuilt(str(error)) from None
        except UnicodeEncodeError:  # a workspace path that is not UTF-8: no row can hold it
            raise IndexUnavailable("the archive index cannot hold this workspace's path") from None
        except sqlite3.DatabaseError as error:
            if _busy(error) and time.monotonic() < busy_until and not stopped():
                # Some of sqlite's lock waits (a WAL being opened or checkpointed by another
                # process as it closes) answer "busy" at once rather than waiting: wait here.
                time.sleep(BUSY_RETRY_SECONDS)
                continue
            if _busy(error) or attempt:
                raise IndexUnavailable(f"the archive index cannot be used: {error}") from None
            if not build:  # the next use that may build makes it again, and says so
                raise IndexNotBuilt("the archive index is damaged") from None
            attempt += 1
            continue  # damaged past its first page: made again, and the work done again
        except OSError as error:
            raise IndexUnavailable(
                f"the archive index cannot be used: {error.strerror or error}"
            ) from None
        notice = None
        if why == "damaged" or (why == "missing" and count):
            notice = REBUILT_NOTICE.format(count=count, s="" if count == 1 else "s")
        return result, notice
