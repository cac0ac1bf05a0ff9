"""checked_dirs: the directories given to --add-dir, /add-dir and add_dirs, each either added
(resolved) or named in one line with why not; never the home, `/`, or pleat's own files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.permissions.added_dirs import checked_dirs


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory of the test's own (Path.home() and `~` read HOME)."""
    place = tmp_path / "home"
    place.mkdir()
    monkeypatch.setenv("HOME", str(place))
    return place


def test_good_directories_are_added_resolved_once(
    workspace: Path, tmp_path: Path, home: Path
) -> None:
    (home / "notes").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "shared", target_is_directory=True)
    raw = ["~/notes", "../shared", str(tmp_path / "link"), " ../shared "]
    added, problems = checked_dirs(raw, workspace)
    assert added == ((home / "notes").resolve(), (tmp_path / "shared").resolve())
    assert problems == ()


def test_the_workspace_and_what_it_holds_need_no_adding(workspace: Path, home: Path) -> None:
    (workspace / "src").mkdir()
    assert checked_dirs([".", str(workspace), "src"], workspace) == ((), ())


def test_each_bad_entry_is_one_line_and_the_rest_are_added(
    workspace: Path, tmp_path: Path, home: Path
) -> None:
    (tmp_path / "file.txt").write_text("x")
    (tmp_path / "good").mkdir()
    raw = ["../missing", "../file.txt", "", "a\x00b", "~nobody-here-at-all/x", "../good"]
    added, problems = checked_dirs(raw, workspace)
    assert added == ((tmp_path / "good").resolve(),)
    assert len(problems) == 5 and all("\n" not in line for line in problems)
    assert problems[0] == "added directory '../missing': not found; not added"
    assert problems[1] == "added directory '../file.txt': not a directory; not added"
    assert all(line.endswith("; not added") for line in problems)


@pytest.mark.parametrize("wide", ["/", "~", "{home_parent}"])
def test_the_root_and_the_home_are_refused(workspace: Path, home: Path, wide: str) -> None:
    added, problems = checked_dirs([wide.format(home_parent=home.parent)], workspace)
    assert added == ()
    assert "holds your whole home directory" in problems[0]


def test_pleat_and_claude_codes_own_directories_are_refused(
    workspace: Path, home: Path, pleat_home: Path
) -> None:
    (pleat_home / "sessions").mkdir(parents=True)
    (home / ".claude" / "commands").mkdir(parents=True)
    raw = [str(pleat_home), str(pleat_home / "sessions"), "~/.claude", "~/.claude/commands"]
    added, problems = checked_dirs(raw, workspace)
    assert added == ()
    assert [("run outside the sandbox" in line) for line in problems] == [True] * 4
