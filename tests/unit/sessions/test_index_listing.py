"""Session lists (`pleat sessions`, `--continue`, the picker, `/resume ID`, an editor's) read the
archive index when it is there and nearly current, and the journals otherwise, without building
it or waiting for another process's build (found by review: a half-built index made a list do
the whole build first)."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

import sessions.archive_index as archive_index
from sessions.archive_index import SCHEMA_VERSION, index_path
from sessions.index_listing import indexed_sessions, listed_sessions, session_to_continue
from sessions.messages import Message
from sessions.paths import data_home
from sessions.store import Session, SessionInfo, latest_session, list_sessions


def past_session(workspace: Path, said: str, size: int = 0) -> Session:
    session = Session.create(workspace, model="m")
    session.message(Message("user", said, id="m1", meta={"typed": said}))
    if size:
        session.message(Message("assistant", "x" * size, id="m2"))
    session.close()
    return session


def index_rows() -> list[str]:
    with sqlite3.connect(index_path()) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM sessions ORDER BY id")]


def test_without_an_index_the_journals_are_read_and_none_is_made(workspace: Path) -> None:
    older, newer = past_session(workspace, "first"), past_session(workspace, "second")
    found, notice = listed_sessions(workspace)
    assert [s.id for s in found] == [s.id for s in list_sessions(workspace)]
    assert {s.id for s in found} == {older.id, newer.id} and notice is None
    assert session_to_continue(workspace) == (latest_session(workspace), None)
    assert not index_path().exists()


def test_an_index_that_is_there_is_caught_up_and_used(workspace: Path) -> None:
    first = past_session(workspace, "first")
    assert indexed_sessions(workspace)[1] == "archive index rebuilt (1 session)"  # built here
    later = past_session(workspace, "later")
    os.utime(later.directory / "journal.jsonl", (2e9, 2e9))  # the newest, whatever the clock
    found, notice = listed_sessions(workspace)
    assert [s.id for s in found] == [later.id, first.id] and notice is None
    assert index_rows() == sorted([first.id, later.id])  # the new session is indexed now
    assert session_to_continue(workspace) == (later.id, None)


def test_an_index_far_behind_is_left_to_its_builder(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index begun but not finished (the TUI quit during its background build) lags by
    every journal: the list reads the journals and leaves the index as it was."""
    past_session(workspace, "first")
    indexed_sessions(workspace)
    monkeypatch.setattr(archive_index, "LISTING_CATCH_UP_BYTES", 10_000)
    behind = [past_session(workspace, f"more {n}", size=4_000).id for n in range(3)]
    found, notice = listed_sessions(workspace)
    assert {s.id for s in found} >= set(behind) and notice is None
    assert not set(behind) & set(index_rows())  # nothing was caught up by the list
    indexed_sessions(workspace)  # a use that may build (a search, the background indexer)
    assert set(behind) <= set(index_rows())


@pytest.mark.parametrize("damage", ["garbage", "version"])
def test_a_damaged_index_is_left_for_a_build_and_the_journals_are_read(
    workspace: Path, damage: str
) -> None:
    session = past_session(workspace, "first")
    indexed_sessions(workspace)
    path = index_path()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (SCHEMA_VERSION + 1,))
    if damage == "garbage":
        path.write_bytes(b"not a database" * 600)
    damaged = path.read_bytes()
    assert listed_sessions(workspace) == ([list_sessions(workspace)[0]], None)
    assert path.read_bytes() == damaged  # left for the next use that may build
    assert indexed_sessions(workspace)[1] == "archive index rebuilt (1 session)"
    assert index_rows() == [session.id]


def test_a_busy_index_is_not_waited_for(workspace: Path) -> None:
    """Another process holding the write lock (a starved background build): the list reads
    the journals after a second, and says why."""
    session = past_session(workspace, "first")
    indexed_sessions(workspace)
    past_session(workspace, "second")  # a change to catch up, which needs the write lock
    holder = sqlite3.connect(index_path(), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        done: list[tuple[list[SessionInfo], str | None]] = []
        lister = threading.Thread(target=lambda: done.append(listed_sessions(workspace)))
        lister.start()
        lister.join(timeout=60)  # the lock is held past it: only giving up ends the list
        assert done, "the list waited for the lock"
        found, notice = done[0]
        assert session.id in {s.id for s in found} and notice is not None and "locked" in notice
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_workspace_path_the_index_cannot_hold_lists_from_the_journals(
    workspace: Path,
) -> None:
    past_session(workspace, "first")
    indexed_sessions(workspace)
    odd = Path(os.fsdecode(bytes(workspace) + b"-\xff"))
    found, notice = listed_sessions(odd)
    assert [s.id for s in found] == [s.id for s in list_sessions(odd)]
    assert notice is not None and "cannot hold this workspace's path" in notice
    assert session_to_continue(odd)[0] is None


def test_an_index_that_cannot_be_opened_is_said(workspace: Path) -> None:
    session = past_session(workspace, "first")
    data_home().mkdir(parents=True, exist_ok=True)
    index_path().mkdir()  # a directory where the file should be
    found, notice = listed_sessions(workspace)
    assert [s.id for s in found] == [session.id]
    assert notice is not None and notice.endswith("; the journals were read instead")
