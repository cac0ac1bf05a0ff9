"""Claude Code's instruction files, headless against the scripted server: ~/.claude/CLAUDE.md, the
project's CLAUDE.md and CLAUDE.local.md, and the files they `@`-import reach the model's request
in Claude Code's order; an import leading out of the workspace, or written in a code span, does
not, and the refusal is said; `/memory` lists every file, imports with their importer."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessions.memory_store import WorkspaceMemory
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text

pytestmark = pytest.mark.slow


def test_claude_md_files_and_their_imports_reach_the_model_and_a_refused_one_does_not(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("USER-RULE: be terse.\n- prefs: @~/prefs.md\n")
    (home / "prefs.md").write_text("HOME-PREFS: British spelling.\n")
    (tmp_path / "secret.md").write_text("SECRET-OUTSIDE-THE-WORKSPACE\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "style.md").write_text("IMPORTED-STYLE: four spaces.\n")
    (workspace / "docs" / "example.md").write_text("ONLY-AN-EXAMPLE\n")
    (workspace / "CLAUDE.md").write_text(
        "PROJECT-RULE: run the tests.\nStyle: @docs/style.md\nAlso @../secret.md\n"
        "Write an import as `@docs/example.md`.\n"
    )
    (workspace / "CLAUDE.local.md").write_text("LOCAL-RULE: my sandbox URL.\n")
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}

    server.push(Text("ok"))
    done = run_pleat(workspace, server, "-p", "hello", env=env)
    assert done.returncode == 0, done.stderr
    system = server.requests[-1].messages[0]
    assert system["role"] == "system"
    order = ["USER-RULE", "HOME-PREFS", "PROJECT-RULE", "IMPORTED-STYLE", "LOCAL-RULE"]
    at = [system["content"].find(text) for text in order]
    assert -1 not in at and at == sorted(at), system["content"]
    assert "SECRET-OUTSIDE" not in str(server.requests[-1].messages)
    assert "ONLY-AN-EXAMPLE" not in str(server.requests[-1].messages)
    refused = (
        f"@../secret.md (in CLAUDE.md): {tmp_path / 'secret.md'} is not inside the workspace, "
        "or a Markdown file under ~/.claude; not read"
    )
    assert f"pleat: {refused}\n" in done.stderr

    listed = run_pleat(workspace, server, "-p", "/memory", env=env)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        "user     ~/.claude/CLAUDE.md",
        "imported ~/prefs.md (imported by ~/.claude/CLAUDE.md)",
        "project  CLAUDE.md",
        "imported docs/style.md (imported by CLAUDE.md)",
        "local    CLAUDE.local.md",
        f"auto     {WorkspaceMemory.of(workspace).path}",
        "  (empty: the model adds to it with its memory tool)",
        f"not read: {refused}",
    ]

    note = run_pleat(workspace, server, "-p", "/memory # use tabs", env=env)
    assert note.returncode == 2
    assert note.stderr.splitlines()[-1].startswith("pleat: error: /memory takes nothing")
    assert "use tabs" not in (workspace / "CLAUDE.md").read_text()
