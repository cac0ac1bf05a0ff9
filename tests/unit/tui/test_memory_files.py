"""/memory's list: every file of the system prompt in order, each import with its importer,
pleat's and the project's files offered when missing, the nested ones, then why files were not
read and which imports name no file."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessions.memory_store import WorkspaceMemory
from tui.memory_command import memory_files


def test_the_list_holds_imports_offers_and_the_lines_why(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    (home / ".claude" / "CLAUDE.md").write_text("mine\n")
    (workspace / "CLAUDE.md").write_text("@docs/a.md @../out.md @docs/typo.md\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "a.md").write_text("A\n")
    (tmp_path / "out.md").write_text("out\n")
    (workspace / "CLAUDE.local.md").write_text("local\n")
    files, notes = memory_files(workspace, ["pkg/AGENTS.md"])
    assert [(f.kind, f.name, f.exists) for f in files] == [
        ("user", "~/.claude/CLAUDE.md", True),
        ("user", str(tmp_path / "pleat-home" / "AGENTS.md"), False),  # Enter creates it
        ("project", "CLAUDE.md", True),
        ("imported", "docs/a.md (imported by CLAUDE.md)", True),
        ("local", "CLAUDE.local.md", True),
        ("nested", "pkg/AGENTS.md", True),
    ]
    assert files[3].path == workspace / "docs" / "a.md"
    assert notes == [
        f"@../out.md (in CLAUDE.md): {tmp_path / 'out.md'} is not inside the workspace, or a "
        "Markdown file under ~/.claude; not read",
        "import not found: @docs/typo.md (in CLAUDE.md): no such file",
    ]


def test_the_auto_memory_is_last_and_its_directory_is_made_for_the_editor(
    workspace: Path,
) -> None:
    memory = WorkspaceMemory.of(workspace)
    files, _ = memory_files(workspace, [], memory)
    assert (files[-1].kind, files[-1].path, files[-1].exists) == ("auto", memory.path, False)
    assert memory.directory.is_dir()  # so that Enter's editor can create the file
    assert [f.kind for f in memory_files(workspace, [])[0]] == ["user", "project"]  # off
