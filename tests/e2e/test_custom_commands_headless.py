"""Custom slash commands headless: `pleat -p "/audit src/app.py"` (its entry point in process), the
scripted server recording what the model was sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessions.journal import replay_journal
from sessions.store import session_info
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text

# Slow (each test runs pleat headless: litellm's import, once per worker).
pytestmark = pytest.mark.slow

AUDIT = """\
---
description: Audit a file for bugs
argument-hint: [file] [focus]
allowed-tools: Bash(git diff:*)
---
Audit @$1 for bugs; focus on $2.
The whole request: $ARGUMENTS
"""


def home_env(tmp_path: Path) -> dict[str, str]:
    """A home of the test's own: no ~/.claude of the machine's user is read."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}


def last_user_text(server: ScriptedServer) -> str:
    content = server.requests[-1].messages[-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_project_command_runs_headless_and_the_server_receives_the_expanded_text(
    server: ScriptedServer, workspace: Path, tmp_path: Path, pleat_home: Path
) -> None:
    write(workspace / ".pleat" / "commands" / "audit.md", AUDIT)
    write(workspace / "src" / "app.py", "def main():\n    return 'launch code 7731'\n")
    server.push(Text("No bugs found."))
    done = run_pleat(
        workspace, server, "-p", '/audit src/app.py "error handling"', env=home_env(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "No bugs found."
    sent = last_user_text(server)
    assert sent.startswith("Audit @src/app.py for bugs; focus on error handling.\n")
    assert 'The whole request: src/app.py "error handling"' in sent
    assert "Contents of src/app.py" in sent and "launch code 7731" in sent  # @$1 included
    assert "/audit" not in sent  # the model gets the prompt, not the command line
    assert "pleat: /audit: the project command in .pleat/commands/audit.md" in done.stderr
    journal = next((pleat_home / "sessions").glob("*/journal.jsonl"))
    request = next(m for m in replay_journal(journal).history if m.role == "user")
    assert request.content == sent  # kept as sent, with what was typed beside it
    assert request.meta["typed"] == '/audit src/app.py "error handling"'
    assert request.meta["expanded_from"] == ".pleat/commands/audit.md"
    listed = session_info(journal.parent)  # the session list shows what was typed
    assert listed.first_request == '/audit src/app.py "error handling"'


def test_claude_code_command_directories_work_unchanged_and_the_project_wins(
    server: ScriptedServer, workspace: Path, tmp_path: Path, pleat_home: Path
) -> None:
    env = home_env(tmp_path)
    claude_user = Path(env["CLAUDE_CONFIG_DIR"]) / "commands"
    write(workspace / ".claude" / "commands" / "frontend" / "component.md", "Build $ARGUMENTS.")
    write(claude_user / "explain.md", "Explain $ARGUMENTS simply.")
    write(claude_user / "frontend" / "component.md", "the user's component: never used")
    write(pleat_home / "commands" / "hello.md", "Say hello to $1")
    server.push(Text("one"), Text("two"), Text("three"))
    for prompt in ("/frontend:component a login form", "/explain monads", "/hello 'Ada L'"):
        done = run_pleat(workspace, server, "-p", prompt, env=env)
        assert done.returncode == 0, done.stderr
    sent = [r.messages[-1]["content"] for r in server.requests]
    assert sent == ["Build a login form.", "Explain monads simply.", "Say hello to Ada L"]


def test_a_command_without_placeholders_gets_its_arguments_appended_json_output_too(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    write(workspace / ".pleat" / "commands" / "tests.md", "Run the tests and fix failures.\n")
    server.push(Text("done"))
    done = run_pleat(
        workspace,
        server,
        "-p",
        "/tests only the unit ones",
        "--output-format",
        "json",
        env=home_env(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    assert last_user_text(server) == (
        "Run the tests and fix failures.\n\nARGUMENTS: only the unit ones"
    )
    result = json.loads(done.stdout)
    assert (result["type"], result["is_error"], result["result"]) == ("result", False, "done")


def test_a_broken_command_file_is_said_in_one_line_and_the_prompt_goes_as_written(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    write(workspace / ".pleat" / "commands" / "audit.md", "---\ndescription: x\nno colon\n---\nb")
    write(workspace / ".pleat" / "commands" / "empty.md", "")
    server.push(Text("answered"))
    done = run_pleat(workspace, server, "-p", "/audit src/app.py", env=home_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert ".pleat/commands/audit.md': line 3 is not `key: value`; skipped" in done.stderr
    assert "pleat: note: /audit is not a command; sent to the model as written" in done.stderr
    assert last_user_text(server) == "/audit src/app.py"
    empty = run_pleat(workspace, server, "-p", "/empty", env=home_env(tmp_path))
    assert empty.returncode == 2
    assert empty.stderr.strip().splitlines()[-1] == (
        "pleat: error: /empty has no prompt: .pleat/commands/empty.md is empty"
    )
    assert len(server.requests) == 1  # nothing was sent for the empty command


@pytest.mark.parametrize("prompt", ["/help", "/model openai/gpt-4o", "/quit"])
def test_a_command_of_the_tui_only_is_refused_headless_with_one_line_and_exit_code_2(
    server: ScriptedServer, workspace: Path, tmp_path: Path, pleat_home: Path, prompt: str
) -> None:
    done = run_pleat(workspace, server, "-p", prompt, env=home_env(tmp_path))
    assert done.returncode == 2
    name = prompt.split()[0]
    assert done.stderr.splitlines() == [
        f"pleat: error: {name} works in pleat's terminal UI only; a headless run takes /compact, "
        "/diff, /export, /fork, /init, /lsp, /mcp, /memory, /review, /rewind, /sandbox, /skills, "
        "/undo, /worktree and custom commands (options: pleat --help)"
    ]
    assert done.stdout == ""
    assert server.requests == []  # never sent to the model
    assert not (pleat_home / "sessions").exists() or not any((pleat_home / "sessions").iterdir())
