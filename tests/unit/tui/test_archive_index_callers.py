"""The chunk browser's search and the session lists read the archive index; without a
usable index they read the files, and say so."""

from __future__ import annotations

from pathlib import Path

from agent.slash.chunk_search import ChunkSearcher
from sessions.archive_index import index_path
from sessions.archive_query import compile_query
from sessions.index_listing import indexed_sessions, listed_sessions
from sessions.messages import Message
from sessions.store import Session, list_sessions


def folded_session(workspace: Path) -> Session:
    session = Session.create(workspace, model="m")
    session.archive.write_chunk([Message("user", "plain words", id="m2")], topics="a", tokens=1)
    session.archive.write_chunk(
        [Message("assistant", "the marmot-port is 8443", id="m3")], topics="b", tokens=1
    )
    return session


def test_the_chunk_search_reads_the_index(workspace: Path) -> None:
    session = folded_session(workspace)
    searcher = ChunkSearcher(session.archive)
    found = searcher.search(compile_query("marmot-port"), [1, 2], lambda: False)
    assert list(found) == [2] and found[2].first.entry.message.id == "m3"
    assert index_path().is_file() and searcher.notice == "archive index rebuilt (1 session)"
    assert searcher.search(compile_query("marmot-port"), [1], lambda: False) == {}
    assert searcher.notice is None  # said once
    session.close()


def test_without_a_usable_index_the_files_are_read_and_that_is_said(workspace: Path) -> None:
    session = folded_session(workspace)
    index_path().parent.mkdir(parents=True, exist_ok=True)
    index_path().mkdir()  # cannot be opened as a file
    searcher = ChunkSearcher(session.archive)
    assert list(searcher.search(compile_query("marmot-port"), [1, 2], lambda: False)) == [2]
    assert searcher.notice is not None and "chunk files were read instead" in searcher.notice
    listed, notice = listed_sessions(workspace)
    assert [s.id for s in listed] == [session.id]
    assert notice is not None and "journals were read instead" in notice
    session.close()


def test_the_picker_lists_from_the_index(workspace: Path) -> None:
    session = folded_session(workspace)
    session.message(Message("user", "fix the lexer", id="m4", meta={"typed": "fix the lexer"}))
    session.close()
    assert listed_sessions(workspace) == (list_sessions(workspace), None)  # none yet: journals
    assert not index_path().exists()  # a list builds nothing (the TUI builds it aside)
    assert indexed_sessions(workspace)[1] == "archive index rebuilt (1 session)"
    listed, notice = listed_sessions(workspace)
    assert [(s.id, s.first_request, s.chunks) for s in listed] == [(session.id, "fix the lexer", 2)]
    assert notice is None
