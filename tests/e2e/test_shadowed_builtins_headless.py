"""A command file of a built-in's name headless: `pleat -p "/review"` with a project review.md sends
the file's expansion, `pleat -p "/pleat:review"` runs pleat's built-in (the entry point in
process, a real git repository, the scripted server recording what the model was sent); and a
command file's `!` lines run nothing, not even confined."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.commands.builtin_prompts import REVIEW_PROMPT
from sessions.journal import replay_journal
from tests.support.git_support import git_repo
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text

# Slow (each test runs pleat headless: litellm's import, once per worker).
pytestmark = pytest.mark.slow

REVIEW_MD = """\
---
description: Our team's review checklist
argument-hint: [area]
---
Review $ARGUMENTS against CHECKLIST.md; list each unmet item.
"""


def home_env(tmp_path: Path) -> dict[str, str]:
    """A home of the test's own: no ~/.claude of the machine's user is read."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}


def sent(server: ScriptedServer, index: int) -> str:
    content = server.requests[index].messages[-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_review_md_is_what_slash_review_runs_and_pleat_review_the_builtin(
    server: ScriptedServer, workspace: Path, tmp_path: Path, pleat_home: Path
) -> None:
    git_repo(workspace, {"app.py": b"def main():\n    return 1\n"})
    (workspace / "app.py").write_text("def main():\n    return 2\n")
    write(workspace / ".claude" / "commands" / "review.md", REVIEW_MD)
    env = home_env(tmp_path)
    server.push(Text("two items unmet"), Text("one finding"))

    mine = run_pleat(workspace, server, "-p", "/review the parser", env=env)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout.strip() == "two items unmet"
    assert sent(server, 0) == "Review the parser against CHECKLIST.md; list each unmet item."
    assert (
        "pleat: note: /review runs the project command '.claude/commands/review.md'; "
        "pleat's built-in is /pleat:review"
    ) in mine.stderr
    assert "pleat: /review: the project command in .claude/commands/review.md" in mine.stderr

    builtin = run_pleat(workspace, server, "-p", "/pleat:review the return value", env=env)
    assert builtin.returncode == 0, builtin.stderr
    assert builtin.stdout.strip() == "one finding"
    request = sent(server, 1)
    assert request.startswith(REVIEW_PROMPT) and "+    return 2" in request
    assert request.endswith("The user adds: the return value")
    assert "pleat: /review: pleat's built-in prompt" in builtin.stderr
    journals = sorted((pleat_home / "sessions").glob("*/journal.jsonl"))
    typed = [
        m.meta["typed"] for j in journals for m in replay_journal(j).history if m.role == "user"
    ]
    assert sorted(typed) == ["/pleat:review the return value", "/review the parser"]


def test_a_file_takes_a_handled_builtins_name_and_a_tui_only_one_headless(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """/sandbox (a headless built-in with its own handler) and /model (the TUI's only): with a
    file of their name, the file runs; `/pleat:sandbox` is the report, `/pleat:model` refused."""
    write(workspace / ".pleat" / "commands" / "sandbox.md", "Explain our sandbox policy.")
    write(workspace / ".pleat" / "commands" / "model.md", "Which model are you?")
    env = home_env(tmp_path)
    server.push(Text("policy"), Text("a model"))
    for prompt in ("/sandbox", "/model"):
        done = run_pleat(workspace, server, "-p", prompt, env=env)
        assert done.returncode == 0, done.stderr
    assert [sent(server, i) for i in (0, 1)] == [
        "Explain our sandbox policy.",
        "Which model are you?",
    ]
    report = run_pleat(workspace, server, "-p", "/pleat:sandbox", env=env)
    assert report.returncode == 0, report.stderr
    assert "workspace" in report.stdout and len(server.requests) == 2  # no model call
    refused = run_pleat(workspace, server, "-p", "/pleat:model", env=env)
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1].startswith(
        "pleat: error: /pleat:model works in pleat's terminal UI only"
    )
    write(workspace / ".pleat" / "commands" / "diff.md", "never sent")
    diff = run_pleat(workspace, server, "-p", "/pleat:diff", "--output-format", "json", env=env)
    assert diff.returncode == 0, diff.stderr
    assert json.loads(diff.stdout)["is_error"] is False and len(server.requests) == 2


def test_the_init_line_lists_a_shadowed_builtin_under_its_pleat_spelling(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    write(workspace / ".claude" / "commands" / "review.md", REVIEW_MD)
    server.push(Text("ok"))
    done = run_pleat(
        workspace,
        server,
        "-p",
        "hello",
        "--output-format",
        "stream-json",
        "--verbose",
        env=home_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    init = next(
        line for line in map(json.loads, done.stdout.splitlines()) if line.get("subtype") == "init"
    )
    commands = init["slash_commands"]
    assert "pleat:review" in commands and "review" in commands and "undo" in commands
    assert "pleat:undo" not in commands  # not shadowed: its own name


def test_a_command_files_shell_lines_run_nothing_with_the_sandbox_on(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """Item 8's check: Claude Code runs a command file's !`...` lines; pleat runs none of them,
    so a file a sandboxed command wrote cannot run anything outside the sandbox (nor inside)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    write(
        workspace / ".claude" / "commands" / "status.md",
        f"Status: !`touch {outside}/escaped` and !`touch ran-inside`\nSummarise it.",
    )
    server.push(Text("summarised"))
    done = run_pleat(
        workspace, server, "-p", "/status", "--sandbox", "workspace-write", env=home_env(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    assert list(outside.iterdir()) == [] and not (workspace / "ran-inside").exists()
    assert sent(server, 0).startswith(f"Status: !`touch {outside}/escaped` and !`touch ran-inside`")
    assert "its !`command` lines were not run" in done.stderr
