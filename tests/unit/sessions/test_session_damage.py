"""Damaged sessions, hostile ids, a PLEAT_HOME that is a file, config numbers out of range."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.config import ConfigError, load_config
from sessions.messages import Message
from sessions.store import Session, SessionError, format_sessions, latest_session, list_sessions
from tools.base import ToolError
from tools.paths import resolve_in_workspace

# A value far longer than any error should quote.
HUGE = "x" * (10 * 1024 * 1024)


def good_session(workspace: Path) -> str:
    session = Session.create(workspace, model="m")  # writes the header
    session.message(Message("system", "you are pleat", id="m0"))
    session.close()
    return session.id


def damage(pleat_home: Path, name: str, journal: bytes | None) -> None:
    """A session directory `name` whose journal holds `journal` (None: a directory instead)."""
    directory = pleat_home / "sessions" / name
    directory.mkdir(parents=True)
    if journal is None:
        (directory / "journal.jsonl").mkdir()
    else:
        (directory / "journal.jsonl").write_bytes(journal)


DAMAGE = {
    "20260101-000000-aaaaa1": (None, "its journal is not a file"),
    "20260101-000000-aaaaa2": (b"\x00\xff\xfe binary", "its first line is not a session header"),
    "20260101-000000-aaaaa3": (b"[1, 2, 3]\n", "its first line is not a session header"),
    "20260101-000000-aaaaa4": (b"[" * 100_000 + b"\n", "its first line is not a session header"),
    "20260101-000000-aaaaa5": (b"", "its journal is empty"),
    "20260101-000000-aaaaa6": (b'{"type": "usage"}\n', "its first line is not a session header"),
}


def test_damaged_sessions_are_listed_as_damaged_and_the_others_work(
    pleat_home: Path, workspace: Path
) -> None:
    good = good_session(workspace)
    for name, (journal, _) in DAMAGE.items():
        damage(pleat_home, name, journal)
    # A message line of the wrong shape in an otherwise good journal does not break the list.
    lines = b'{"type":"session","workspace":"/w"}\n{"type":"message","message":[1],"role":"user"}\n'
    damage(pleat_home, "20260101-000000-aaaaa7", lines)
    found = {s.id: s for s in list_sessions(workspace)}
    assert found[good].damaged is None
    for name, (_, reason) in DAMAGE.items():
        assert found[name].damaged == reason
    assert latest_session(workspace) == good  # --continue skips the damaged ones
    table = format_sessions(list(found.values()))
    assert "[damaged: its journal is not a file]" in table
    for name in DAMAGE:
        with pytest.raises(SessionError) as raised:
            Session.resume(name)
        assert "\n" not in str(raised.value)
    resumed, _, _ = Session.resume(good)
    resumed.close()


@pytest.mark.parametrize("wanted", ["../x", "/etc", "", "a\x00b", "a/b", ".hidden", "x" * 1_000])
def test_session_ids_are_checked_before_any_path_is_made(pleat_home: Path, wanted: str) -> None:
    (pleat_home / "x").mkdir(parents=True)
    with pytest.raises(SessionError, match="is not a session id") as raised:
        Session.resume(wanted)
    assert len(str(raised.value)) < 200


def test_pleat_home_that_is_a_file_is_one_clear_error(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home-file"
    home.write_text("not a directory\n")
    monkeypatch.setenv("PLEAT_HOME", str(home))
    with pytest.raises(SessionError, match=r"cannot use the session directory .* PLEAT_HOME"):
        Session.create(workspace, model="m")
    assert list_sessions(workspace) == []


@pytest.mark.parametrize(
    ("toml", "words"),
    [
        ("request_timeout = inf", "must be a finite number"),
        ("request_timeout = nan", "must be a finite number"),
        ("request_timeout = 1e300", "seconds in (0, 3600]"),
        ("request_timeout = -1", "seconds in (0, 3600]"),
        ("command_timeout = inf", "must be a finite number"),
        ("max_tool_iterations = 1000000000", "an integer from 1 to 10000"),
        ("idle_compaction_seconds = 1e12", "seconds from 0 to 86400"),
        ("[compaction]\nthreshold = nan", "must be a finite number"),
    ],
)
def test_config_numbers_are_finite_and_in_range(tmp_path: Path, toml: str, words: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(toml + "\n")
    with pytest.raises(ConfigError) as raised:
        load_config(path=path, environ={})
    assert words in str(raised.value) and "\n" not in str(raised.value)


def test_environment_numbers_are_checked_too(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="PLEAT_REQUEST_TIMEOUT must be a finite number"):
        load_config(path=tmp_path / "none.toml", environ={"PLEAT_REQUEST_TIMEOUT": "inf"})


def test_long_values_are_cut_in_errors(tmp_path: Path, workspace: Path) -> None:
    with pytest.raises(ConfigError) as config_error:
        load_config(path=tmp_path / "none.toml", environ={"PLEAT_REQUEST_TIMEOUT": HUGE})
    assert len(str(config_error.value)) < 400 and "more characters" in str(config_error.value)
    with pytest.raises(ToolError) as tool_error:
        resolve_in_workspace(workspace, "/" + "a/" * 1_000_000)
    assert len(str(tool_error.value)) < 600 and "more characters" in str(tool_error.value)


def test_an_unreadable_journal_is_damaged_not_fatal(pleat_home: Path, workspace: Path) -> None:
    good = good_session(workspace)
    name = "20260101-000000-bbbbb1"
    damage(pleat_home, name, b"")
    os.chmod(pleat_home / "sessions" / name / "journal.jsonl", 0)
    found = {s.id: s for s in list_sessions(workspace)}
    assert found[good].damaged is None and found[name].damaged is not None
