"""The project scope of archive queries: every session of the workspace, searched and read."""

# This session's folded messages are searched in its archive (its live ones are in the context
# already); every other session of the workspace is searched in its journal, which holds each
# message it ever had, folded or not, word for word. Both are read through the archive index
# (sessions/archive_index.py), which skips nothing; only when the index cannot be used are the
# journals read directly, under a byte budget. Sessions come newest first, and one query runs
# under one time budget for its pattern.

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sessions.archive import ChunkArchive
from sessions.archive_index import IndexUnavailable, use_index
from sessions.archive_query import Entry, Hit, Query, SearchCancelled, chunk_entries, match
from sessions.archive_query import unreadable_reason as reason
from sessions.bounded_regex import Deadline, PatternTooSlow
from sessions.index_search import candidates, chunk_candidates, indexed, read_entries
from sessions.messages import Message
from sessions.paths import data_home
from sessions.workspace_sessions import (
    ByteBudget,
    SessionRef,
    Unreadable,
    journal_messages,
    searched,
    workspace_sessions,
)

# Journal bytes one project search reads in all when the index cannot be used: a long session's
# journal is a few megabytes, so this covers dozens of them in a few seconds of parsing; past it
# the search says which sessions it did not reach (a query can name one with `session`).
MAX_PROJECT_BYTES = 256 * 1024 * 1024
# Hits kept per project search: the reader shows at most a page of them; past this the rest
# are only counted by session, so a query matching everything holds little in memory.
MAX_KEPT_HITS = 300
# Messages one read of another session gives back: a range of ids past this is cut there,
# and the read says where to go on (its pages bound what reaches the model in any case).
MAX_READ_MESSAGES = 2_000


@dataclass(frozen=True)
class ProjectHit:
    """A hit, and the session it is in (None: this session, whose hits sit in its chunks)."""

    session: SessionRef | None
    hit: Hit


@dataclass
class ProjectResult:
    """What a project search found, this session's hits first, then the others' newest first."""

    hits: list[ProjectHit] = field(default_factory=list)
    # Hits past MAX_KEPT_HITS, counted by session id ("" for this session).
    more: Counter[str] = field(default_factory=Counter)
    searched: int = 0  # sessions searched (this one included)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (what, why not read)
    # Why the search stopped before the end (the pattern's time, the byte budget), or None.
    stopped_early: str | None = None
    # A line to show once: the archive index was rebuilt, or could not be used.
    notice: str | None = None

    def add(self, session: SessionRef | None, hit: Hit) -> None:
        if len(self.hits) < MAX_KEPT_HITS:
            self.hits.append(ProjectHit(session, hit))
        else:
            self.more[session.id if session else ""] += 1


def _archive_entries(archive: ChunkArchive, result: ProjectResult) -> Iterator[Entry]:
    for info in archive.chunks():
        try:
            yield from chunk_entries(archive, info.number)
        except (OSError, ValueError) as exc:
            result.skipped.append((f"chunk {info.number} of this session", reason(exc)))


def _journal_entries(
    ref: SessionRef, budget: ByteBudget, stopped: Callable[[], bool]
) -> Iterator[Entry]:
    for message in journal_messages(ref, budget, stopped):
        if searched(message):
            yield Entry(0, message, False)


def search_project(
    query: Query,
    workspace: Path,
    archive: ChunkArchive,
    stopped: Callable[[], bool] = lambda: False,
    only: str | None = None,
) -> ProjectResult:
    """Runs the query over this session's archive and every other session of `workspace`
    (resolved), or over the one session `only` names. Raises SearchCancelled once
    `stopped()`."""
    try:
        result, notice = use_index(
            lambda conn: _search_index(conn, query, workspace, archive, stopped, only), stopped
        )
    except IndexUnavailable as exc:
        result = _search_journals(query, workspace, archive, stopped, only)
        result.notice = f"{exc}; the journals were read instead"
        return result
    result.notice = notice
    return result


def _search_index(
    conn: sqlite3.Connection,
    query: Query,
    workspace: Path,
    archive: ChunkArchive,
    stopped: Callable[[], bool],
    only: str | None,
) -> ProjectResult:
    if stopped():
        raise SearchCancelled
    result = ProjectResult()
    deadline = Deadline()
    mine = archive.session_id
    where = "workspace = ? AND damaged IS NULL AND id != ?" + (" AND id = ?" if only else "")
    params: tuple[str, ...] = (str(workspace), mine, *((only,) if only else ()))
    result.searched = conn.execute(
        f"SELECT count(*) FROM sessions WHERE {where}", params
    ).fetchone()[0]
    refs: dict[str, SessionRef] = {}  # made for the sessions with hits only

    def ref(session_id: str) -> SessionRef:
        if session_id not in refs:
            row = conn.execute(
                "SELECT started, last_active, kind FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            directory = data_home() / "sessions" / session_id
            refs[session_id] = SessionRef(
                session_id, directory, row[0], row[1], row[2] == "subagent"
            )
        return refs[session_id]

    try:
        if only in (None, mine):
            result.searched += 1
            if indexed(archive):
                found = chunk_candidates(conn, query, mine)
                entries: Iterable[Entry] = (e for _, e in read_entries(conn, found.rows))
            else:  # an archive outside the data directory (not indexed): read its files
                entries = _archive_entries(archive, result)
            for entry in entries:
                if stopped():
                    raise SearchCancelled
                if (hit := match(entry, query, deadline)) is not None:
                    result.add(None, hit)
        where = "s.workspace = ? AND s.damaged IS NULL AND e.chunk = 0 AND s.id != ?"
        order = "s.last_active DESC, s.id DESC, e.seq"
        found = candidates(conn, query, where + (" AND s.id = ?" if only else ""), params, order)
        for number, (session_id, entry) in enumerate(read_entries(conn, found.rows)):
            if stopped():
                raise SearchCancelled
            if found.narrowed and len(result.hits) >= MAX_KEPT_HITS:
                result.more.update(session for _, session in found.rows[number:])
                break
            if (hit := match(entry, query, deadline)) is not None:
                result.add(ref(session_id), hit)
    except PatternTooSlow as exc:
        result.stopped_early = str(exc)
    return result


def _search_journals(
    query: Query,
    workspace: Path,
    archive: ChunkArchive,
    stopped: Callable[[], bool],
    only: str | None,
) -> ProjectResult:
    """The search without the index: the journals read one by one, up to MAX_PROJECT_BYTES."""
    result = ProjectResult()
    deadline = Deadline()
    budget = ByteBudget(MAX_PROJECT_BYTES)
    others = [ref for ref in workspace_sessions(workspace) if ref.id != archive.session_id]
    sources: list[SessionRef | None] = [ref for ref in others if only in (None, ref.id)]
    if only in (None, archive.session_id):
        sources.insert(0, None)
    for number, session in enumerate(sources):
        result.searched += 1
        if session is None:
            entries = _archive_entries(archive, result)
        else:
            entries = _journal_entries(session, budget, stopped)
        try:
            for entry in entries:
                if stopped():
                    raise SearchCancelled
                hit = match(entry, query, deadline)
                if hit is not None:
                    result.add(session, hit)
        except PatternTooSlow as exc:
            result.stopped_early = str(exc)
            return result
        except (OSError, Unreadable) as exc:
            result.skipped.append((f"session {session.id if session else ''}", reason(exc)))
        if stopped():
            raise SearchCancelled
        if budget.left < 0:
            left = len(sources) - number - 1
            result.stopped_early = (
                f"read {MAX_PROJECT_BYTES:,} bytes of journals, the last session in part; "
                f"{left} older session{'' if left == 1 else 's'} not searched (search one with "
                "session=ID)"
            )
            return result
    return result


def find_session(workspace: Path, session_id: str) -> SessionRef | None:
    """The session of `workspace` with this id, or None (no such session in this workspace)."""
    return next((ref for ref in workspace_sessions(workspace) if ref.id == session_id), None)


def session_messages(
    ref: SessionRef, first_id: str, last_id: str | None
) -> tuple[list[Message], bool]:
    """The session's journaled messages from `first_id` through `last_id` (only `first_id`
    when None), in journal order, and whether the range was cut at MAX_READ_MESSAGES. Empty
    when `first_id` is not there. Raises OSError or Unreadable."""
    found: list[Message] = []
    for message in journal_messages(ref):
        if not found and message.id != first_id:
            continue
        if not searched(message):
            continue
        found.append(message)
        if last_id is None or message.id == last_id:
            return found, False
        if len(found) >= MAX_READ_MESSAGES:
            return found, True
    return found, False
