"""`pleat sessions`, `--continue`, ACP's list and `/resume <id>` list from the archive index
when there is one, and read the journals without making one when there is none (a first build
reads every journal: a plain listing must not wait for it)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from sessions.archive_index import SCHEMA_VERSION, index_path
from sessions.index_listing import listed_sessions, session_to_continue
from sessions.messages import Message
from sessions.paths import data_home
from sessions.store import Session, latest_session, list_sessions


def past_session(workspace: Path, said: str) -> Session:
    session = Session.create(workspace, model="m")
    session.message(Message("user", said, id="m1", meta={"typed": said}))
    session.close()
    return session


def index_rows() -> list[str]:
    with sqlite3.connect(index_path()) as conn:
        return [row[0] for row in conn.execute("SELECT id FROM sessions ORDER BY id")]


def test_without_an_index_the_journals_are_read_and_none_is_made(workspace: Path) -> None:
    older, newer = past_session(workspace, "first"), past_session(workspace, "second")
    found, notice = listed_sessions(workspace, build=False)
    assert [s.id for s in found] == [s.id for s in list_sessions(workspace)]
    assert {s.id for s in found} == {older.id, newer.id} and notice is None
    assert session_to_continue(workspace) == (latest_session(workspace), None)
    assert not index_path().exists()


def test_an_index_that_is_there_is_caught_up_and_used(workspace: Path) -> None:
    first = past_session(workspace, "first")
    assert listed_sessions(workspace)[1] == "archive index rebuilt (1 session)"  # built here
    later = past_session(workspace, "later")
    os.utime(later.directory / "journal.jsonl", (2e9, 2e9))  # the newest, whatever the clock
    found, notice = listed_sessions(workspace, build=False)
    assert [s.id for s in found] == [later.id, first.id] and notice is None
    assert index_rows() == sorted([first.id, later.id])  # the new session is indexed now
    assert session_to_continue(workspace) == (later.id, None)


@pytest.mark.parametrize("damage", ["garbage", "version"])
def test_a_damaged_index_is_left_for_a_build_and_the_journals_are_read(
    workspace: Path, damage: str
) -> None:
    session = past_session(workspace, "first")
    listed_sessions(workspace)
    path = index_path()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (SCHEMA_VERSION + 1,))
    if damage == "garbage":
        path.write_bytes(b"not a database" * 600)
    damaged = path.read_bytes()
    assert listed_sessions(workspace, build=False) == ([list_sessions(workspace)[0]], None)
    assert path.read_bytes() == damaged  # left for the next use that may build
    assert listed_sessions(workspace)[1] == "archive index rebuilt (1 session)"
    assert index_rows() == [session.id]


def test_an_index_that_cannot_be_opened_is_said(workspace: Path) -> None:
    session = past_session(workspace, "first")
    data_home().mkdir(parents=True, exist_ok=True)
    index_path().mkdir()  # a directory where the file should be
    found, notice = listed_sessions(workspace, build=False)
    assert [s.id for s in found] == [session.id]
    assert notice is not None and notice.endswith("; the journals were read instead")
