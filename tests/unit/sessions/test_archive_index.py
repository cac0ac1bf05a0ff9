"""The archive index on real sessions: built, caught up after appends and folds, rebuilt (and
said) when deleted or damaged, never holding what a journal redacted, shared by processes."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from sessions.archive_index import SCHEMA_VERSION, index_path, use_index
from sessions.archive_query import compile_query
from sessions.index_listing import indexed_sessions
from sessions.index_search import chunk_candidates, required_literals
from sessions.messages import Message
from sessions.paths import data_home
from sessions.project_archive import search_project
from sessions.redact import KnownSecrets
from sessions.session_name import name_record
from sessions.store import Session, SessionInfo, list_sessions

REPO = Path(__file__).resolve().parents[3]


def past_session(workspace: Path, *said: str) -> Session:
    """A closed session of `workspace` whose journal holds a system prompt and `said`."""
    session = Session.create(workspace, model="m")
    session.message(Message("system", "You are pleat.", id="m1"))
    for number, text in enumerate(said, 2):
        session.message(Message("user" if number % 2 == 0 else "assistant", text, id=f"m{number}"))
    session.close()
    return session


def entries(session_id: str) -> list[tuple[int, str]]:
    with sqlite3.connect(index_path()) as conn:
        return conn.execute(
            "SELECT e.chunk, e.msg_id FROM entries e JOIN sessions s ON s.key = e.sid "
            "WHERE s.id = ? ORDER BY e.chunk, e.original, e.seq",
            (session_id,),
        ).fetchall()


def hits(workspace: Path, text: str, here: Session) -> list[tuple[str, str]]:
    found = search_project(compile_query(text), workspace, here.archive)
    return [(h.session.id if h.session else "", h.hit.entry.message.id) for h in found.hits]


def test_built_then_caught_up_after_appends_and_folds(workspace: Path) -> None:
    first = past_session(workspace, "where is the cache?", "in walrus-cache.py")
    here = Session.create(workspace, model="m")
    assert hits(workspace, "walrus-cache", here) == [(first.id, "m3")]
    resumed, _, _ = Session.resume(first.id)
    resumed.message(Message("user", "and the walrus-cache size?", id="m4"))
    resumed.archive.write_chunk(
        [Message("user", "folded walrus-cache talk", id="m2")], topics="t", tokens=5
    )
    resumed.close()
    assert hits(workspace, "walrus-cache", here) == [(first.id, "m3"), (first.id, "m4")]
    assert entries(first.id) == [(0, "m2"), (0, "m3"), (0, "m4"), (1, "m2")]
    here.archive.write_chunk([Message("user", "my walrus-cache", id="m2")], topics="t", tokens=5)
    assert hits(workspace, "walrus-cache", here)[0] == ("", "m2")  # this session's chunk first
    here.archive.merge_into_last(
        [Message("assistant", "merged walrus-cache", id="m3")], topics="t", tokens=5
    )
    (found,), _ = use_index(lambda c: [chunk_candidates(c, compile_query("merged"), here.id)])
    assert len(found.rows) == 1  # the rewritten chunk was indexed again, not twice
    here.close()


def test_a_deleted_index_is_rebuilt_and_says_so_once(workspace: Path) -> None:
    old = past_session(workspace, "the answer is otter-42")
    here = Session.create(workspace, model="m")
    first = search_project(compile_query("otter-42"), workspace, here.archive)
    assert first.notice == "archive index rebuilt (2 sessions)"  # made from the journals
    assert search_project(compile_query("otter-42"), workspace, here.archive).notice is None
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index_path()}{suffix}").unlink(missing_ok=True)
    again = search_project(compile_query("otter-42"), workspace, here.archive)
    assert again.notice == "archive index rebuilt (2 sessions)"
    assert [h.session.id for h in again.hits if h.session] == [old.id]
    assert search_project(compile_query("otter-42"), workspace, here.archive).notice is None
    here.close()


@pytest.mark.parametrize("damage", ["garbage", "version", "garbage-inside"])
def test_a_damaged_index_is_rebuilt(workspace: Path, damage: str) -> None:
    old = past_session(
        workspace, "the answer is heron-7", *(f"filler {n} " * 400 for n in range(40))
    )
    here = Session.create(workspace, model="m")
    hits(workspace, "heron-7", here)
    path = index_path()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if damage == "version":
            conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (SCHEMA_VERSION + 1,))
    if damage == "garbage":
        path.write_bytes(os.urandom(8192))
    elif damage == "garbage-inside":
        with path.open("r+b") as file:
            file.seek(4096)
            file.write(b"\xff" * (path.stat().st_size - 4096))
    found = search_project(compile_query("heron-7"), workspace, here.archive)
    assert found.notice == "archive index rebuilt (2 sessions)"
    assert [h.session.id for h in found.hits if h.session] == [old.id]
    here.close()


def test_nothing_the_journal_redacts_reaches_the_index(workspace: Path) -> None:
    secret = "sk-proj-Zq8vN3kT5wY7bR2mL9xC4hJ6"
    session = Session.create(workspace, model="m")
    session.journal.secrets = session.archive.secrets = KnownSecrets([secret])
    session.message(Message("user", f"my key is {secret} and the word is lynx-9", id="m2"))
    session.archive.write_chunk(
        [Message("tool", f"cat .env: KEY={secret}", id="m3", tool_call_id="c1")],
        topics="t",
        tokens=5,
    )
    session.close()
    here = Session.create(workspace, model="m")
    assert hits(workspace, "lynx-9", here) == [(session.id, "m2")]
    assert hits(workspace, secret, here) == []
    files = [p for p in data_home().iterdir() if p.name.startswith("archive-index")]
    assert files and all(secret.encode() not in p.read_bytes() for p in files)
    assert all(p.stat().st_mode & 0o077 == 0 for p in files if p.suffix != ".lock")
    here.close()


def test_a_project_search_finds_the_oldest_of_many_sessions(workspace: Path) -> None:
    made = []
    for number in range(50):
        fact = "the deploy key lives in vault path kv/ibex" if number == 0 else "nothing here"
        session = past_session(workspace, f"session {number}: common-word", fact)
        journal = session.directory / "journal.jsonl"
        os.utime(journal, (1_000_000 + number * 60, 1_000_000 + number * 60))
        made.append(session.id)
    here = Session.create(workspace, model="m")
    assert hits(workspace, "kv/ibex", here) == [(made[0], "m3")]
    everywhere = search_project(compile_query("common-word"), workspace, here.archive)
    assert [h.session.id for h in everywhere.hits if h.session] == made[::-1]  # newest first
    assert everywhere.searched == 51 and everywhere.stopped_early is None
    here.close()


def test_the_picker_lists_from_the_index_as_from_the_journals(workspace: Path) -> None:
    named = past_session(workspace, "first prompt", "a reply")
    resumed, _, _ = Session.resume(named.id)
    resumed.record(name_record("my session", "2026-01-01T00:00:00+0000"))
    resumed.archive.write_chunk([Message("user", "x", id="m2")], topics="t", tokens=1)
    resumed.close()
    past_session(workspace, "second")
    past_session(workspace.parent, "another workspace's")
    damaged = data_home() / "sessions" / "20260101-000000-dead00"
    damaged.mkdir()
    (damaged / "journal.jsonl").write_text("not a header\n")
    listed, _ = indexed_sessions(workspace)

    from_journals = list_sessions(workspace)

    def same(infos: list[SessionInfo]) -> list[SessionInfo]:  # mtimes compared apart, below
        return [replace(s, last_active=0.0) for s in infos]

    assert same(listed) == same(from_journals)
    # st_mtime and mtime_ns / 1e9 may differ in the last bit of the float: equal to a microsecond
    for mine, theirs in zip(listed, from_journals, strict=True):
        assert mine.last_active == pytest.approx(theirs.last_active, abs=1e-6)
    assert {s.name for s in listed} >= {"my session"} and len(listed) == 3
    assert next(s for s in listed if s.id == named.id).chunks == 1


def test_required_literals() -> None:
    assert required_literals(r"zebra-quartz") == ["zebra-quartz"]
    assert required_literals(r"foo\.bar\d+baz") == ["foo.bar", "baz"]
    assert required_literals(r"colou?r") == ["colo", "r"]
    assert required_literals(r"ab+c") == ["ab", "c"]
    assert required_literals(r"a(b|c)d[xy]efg{0,2}h") == ["a", "d", "ef", "h"]
    assert required_literals(r"cat|dog") == []
    assert required_literals(r"(?x) spaced out") == []


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sessions.archive_index import use_index
    from sessions.messages import Message
    from sessions.store import Session

    session = Session.create(Path(sys.argv[1]), model="m")
    for n in range(2, 42):
        session.message(Message("user", f"{sys.argv[2]} line {n}", id=f"m{n}"))
        session.journal.sync_now()
        if n % 4 == 0:
            use_index(lambda conn: None)
    session.close()
    print(session.id)
    """
)


def test_two_processes_writing_and_indexing_at_once(workspace: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(workspace), word],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for word in ("alpaca", "bison")
    ]
    ids = [run.communicate(timeout=120)[0].strip() for run in runs]
    assert all(run.returncode == 0 for run in runs)
    here = Session.create(workspace, model="m")
    for session_id, word in zip(ids, ("alpaca", "bison"), strict=True):
        found = hits(workspace, word, here)
        assert sorted(m for _, m in found) == sorted(f"m{n}" for n in range(2, 42))
        assert {s for s, _ in found} == {session_id}
        assert len(entries(session_id)) == 40  # every line once
    here.close()
