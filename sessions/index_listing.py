"""The session list from the archive index: what `session_info` reads of every journal, kept;
and the journals read instead when the index cannot be used."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sessions.archive_index import IndexNotBuilt, IndexUnavailable, use_index
from sessions.store import SUBAGENT, SessionInfo, list_sessions, newest_own

# The columns a list line is made of, in SessionInfo's order of fields below.
COLUMNS = (
    "id, workspace, started, last_active, messages, chunks, first_request, parent, kind, "
    "damaged, name, turns, size, prompts"
)


def _info(row: tuple[Any, ...]) -> SessionInfo:
    (sid, workspace, started, last_active, messages, chunks, first, parent, kind) = row[:9]
    damaged, name, turns, size, prompts = row[9:]
    if damaged is not None:
        return SessionInfo(str(sid), "?", "?", float(last_active), 0, 0, "", damaged=str(damaged))
    return SessionInfo(
        id=str(sid),
        workspace=str(workspace) if workspace is not None else "?",
        started=str(started),
        last_active=float(last_active),
        messages=int(messages),
        chunks=int(chunks),
        first_request=str(first or ""),
        parent=str(parent) if parent is not None else None,
        kind=SUBAGENT if kind == SUBAGENT else None,
        name=str(name) if name is not None else None,
        turns=int(turns),
        size=int(size),
        prompts=str(prompts or ""),
    )


def _listed(conn: sqlite3.Connection, workspace: Path | None) -> list[SessionInfo]:
    sql = f"SELECT {COLUMNS} FROM sessions"
    if workspace is None:
        rows = conn.execute(sql).fetchall()
    else:
        rows = conn.execute(
            f"{sql} WHERE workspace = ? OR damaged IS NOT NULL", (str(workspace),)
        ).fetchall()
    found = [_info(row) for row in rows]
    return sorted(found, key=lambda s: s.last_active, reverse=True)


def indexed_sessions(
    workspace: Path | None = None, *, build: bool = True
) -> tuple[list[SessionInfo], str | None]:
    """What sessions.store.list_sessions gives (newest first; a damaged session is listed
    with every workspace's), read from the index; and the index's rebuilt notice, if any.
    Raises IndexUnavailable (IndexNotBuilt: no index yet and not `build`)."""
    return use_index(lambda conn: _listed(conn, workspace), build=build)


def listed_sessions(workspace: Path | None = None) -> tuple[list[SessionInfo], str | None]:
    """The sessions (`indexed_sessions`) for a list (`pleat sessions`, the picker, `--continue`,
    an editor's), and the one line to show, if any: from the index when it is there and nearly
    current, from the journals otherwise. A list never builds the index nor waits for its
    build: that takes minutes for a year of sessions, and listing the journals seconds (the TUI
    builds it in the background: agent/session/archive_indexer.py)."""
    try:
        return indexed_sessions(workspace, build=False)
    except IndexNotBuilt:
        return list_sessions(workspace), None
    except IndexUnavailable as error:
        return list_sessions(workspace), f"{error}; the journals were read instead"


def session_to_continue(workspace: Path) -> tuple[str | None, str | None]:
    """The session `--continue` opens (sessions.store.newest_own), and the line to show, if any
    (`listed_sessions`, which builds no index)."""
    found, notice = listed_sessions(workspace)
    return newest_own(found), notice
