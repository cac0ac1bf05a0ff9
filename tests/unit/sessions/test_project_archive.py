"""read_archive's project scope on real sessions: the workspace's earlier sessions are searched
and read, another workspace's never (not through a symlink either), hostile journals are
skipped without blocking, and the byte budget stops a search saying where."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessions import project_archive
from sessions.messages import Message
from sessions.paths import data_home
from sessions.store import Session
from tools.archive_reader import ArchiveReaderTool
from tools.base import ToolContext, ToolError


def past_session(workspace: Path, *said: str) -> str:
    """A closed session of `workspace` whose journal holds the system prompt and `said`."""
    session = Session.create(workspace, model="m")
    session.message(Message("system", "You are pleat. zanzibar in the system prompt", id="m1"))
    for number, text in enumerate(said, 2):
        role = "user" if number % 2 == 0 else "assistant"
        session.message(Message(role, text, id=f"m{number}"))
    session.close()
    return session.id


async def call(tool: ArchiveReaderTool, workspace: Path, **args: object) -> str:
    return (await tool.run(dict(args), ToolContext(workspace))).text


async def test_project_scope_finds_this_workspaces_sessions_only(tmp_path: Path) -> None:
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir(), elsewhere.mkdir()
    (tmp_path / "link").symlink_to(here)  # a path that leads here, recorded as another's
    earlier = past_session(here, "which database?", "we chose zanzibar-db for the cache")
    other = past_session(elsewhere, "zanzibar-db in the other project")
    linked = past_session(tmp_path / "link", "zanzibar-db through the link")
    current = Session.create(here, model="m")
    current.archive.write_chunk(
        [Message("user", "folded: zanzibar-db again", id="m2")], topics="db", tokens=10
    )
    tool = ArchiveReaderTool(current.archive)

    session_only = await call(tool, here, action="search", query="zanzibar-db")
    assert "1 hit" in session_only and earlier not in session_only

    found = await call(tool, here, action="search", scope="project", query="zanzibar-db")
    lines = found.splitlines()
    assert lines[0].startswith("2 hits") and "2 sessions of this workspace" in lines[0]
    assert lines[1].startswith("this session · chunk 1 · m2 · user")
    ref = project_archive.find_session(here, earlier)
    assert ref is not None and ref.date[:2] == "20"
    day = ref.date
    assert lines[2].startswith(f"session {earlier} ({day}) · m3 · assistant: we chose »zanzibar")
    assert other not in found and linked not in found and "system prompt" not in found

    read = await call(tool, here, action="read", session=earlier, from_id="m2", to_id="m3")
    assert "which database?" in read and "we chose zanzibar-db for the cache" in read
    for refused in (other, linked):
        with pytest.raises(ToolError, match="no session"):
            await call(tool, here, action="read", session=refused, id="m2")
    listed = await call(tool, here, action="list", scope="project")
    assert earlier in listed and "which database?" in listed and other not in listed
    current.close()


async def test_hostile_journals_are_skipped_without_blocking(workspace: Path) -> None:
    earlier = past_session(workspace, "first", "needle after a huge line")
    journal = data_home() / "sessions" / earlier / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    huge = b'{"type":"message","message":{"role":"user","content":"' + b"x" * (9 << 20) + b'"}}\n'
    journal.write_bytes(b"".join([*lines[:2], huge, *lines[2:]]))
    fifo = past_session(workspace, "needle in a pipe")
    fifo_journal = data_home() / "sessions" / fifo / "journal.jsonl"
    fifo_journal.unlink()
    os.mkfifo(fifo_journal)  # opening it for reading would block a careless reader forever
    outside = past_session(workspace, "needle behind a symlinked folder")
    moved = data_home() / "moved"
    (data_home() / "sessions" / outside).rename(moved)
    (data_home() / "sessions" / outside).symlink_to(moved)
    current = Session.create(workspace, model="m")
    found = await call(
        ArchiveReaderTool(current.archive), workspace, query="needle", scope="project"
    )
    assert f"session {earlier}" in found and "»needle« after a huge line" in found
    assert fifo not in found and outside not in found
    current.close()


async def test_the_index_skips_nothing_and_without_it_the_byte_budget_says_where(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(3):
        past_session(workspace, "needle " + "padding " * 200)
    monkeypatch.setattr(project_archive, "MAX_PROJECT_BYTES", 2_500)
    current = Session.create(workspace, model="m")
    tool = ArchiveReaderTool(current.archive)
    found = await call(tool, workspace, query="needle", scope="project")
    assert found.startswith("3 hits") and "not searched" not in found
    index = data_home() / "archive-index.sqlite3"
    index.unlink()
    index.mkdir()  # an index that cannot be opened: the journals are read, under the budget
    found = await call(tool, workspace, query="needle", scope="project")
    assert "search stopped early" in found and "not searched" in found
    assert "the journals were read instead" in found
    current.close()
