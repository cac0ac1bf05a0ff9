"""/rename's name: checked, journaled, and read back by the session list with the picker's
facts (turns, size, the typed prompts the filter searches), a damaged name line ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessions.journal import JOURNAL_NAME, now
from sessions.messages import Message
from sessions.session_name import MAX_NAME_CHARS, SessionNameError, checked_name, name_record
from sessions.store import Session, list_sessions


def test_a_name_is_one_line_and_bounded() -> None:
    assert checked_name("  my \n  work  ") == "my work"
    for bad in ("", "   ", "x" * (MAX_NAME_CHARS + 1), "a\x1b[2Jb", "\ud800"):
        with pytest.raises(SessionNameError):
            checked_name(bad)


def test_the_list_reads_the_last_name_turns_size_and_prompts(workspace: Path) -> None:
    session = Session.create(workspace, model="m")
    session.message(Message(role="system", content="You are pleat.", id="m1"))
    session.message(Message(role="user", content="notes", id="m2", meta={"injected": True}))
    session.message(Message(role="user", content="fix the   parser", id="m3"))
    session.message(Message(role="assistant", content="fixed", id="m4"))
    session.message(Message(role="user", content="now the lexer", id="m5"))
    session.record(name_record("first name", now()))
    session.record(name_record("parser work", now()))
    session.close()
    (info,) = list_sessions(workspace)
    assert info.name == "parser work" and info.title == "parser work"
    assert info.turns == 2  # the injected notes are not a turn
    assert info.prompts == "fix the parser\nnow the lexer"
    assert info.size == (session.directory / JOURNAL_NAME).stat().st_size


def test_an_unnamed_session_is_titled_by_its_first_request_and_a_bad_name_is_ignored(
    workspace: Path,
) -> None:
    session = Session.create(workspace, model="m")
    session.message(Message(role="user", content="hello there", id="m2"))
    session.record({"type": "name", "time": now(), "name": 42})
    session.record({"type": "name", "time": now(), "name": "\x1b]52;c;aGk=\x07"})
    session.close()
    with (session.directory / JOURNAL_NAME).open("a") as journal:
        journal.write('{"type":"name", torn\n')
    (info,) = list_sessions(workspace)
    assert info.name is None and info.title == "hello there" and not info.damaged
