"""A Claude Code user's hooks carried over unchanged: guard scripts written against Claude Code's
documented payload (not pleat's names), in the settings files where Claude Code keeps them, run
by `pleat -p` (its entry point in process) against the scripted server."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow: each test runs pleat headless (litellm's import, once per worker).
pytestmark = pytest.mark.slow

# The guard hook copied most widely (Claude Code's docs' Bash validator, reduced): it looks at
# Claude Code's names only and blocks `rm -rf` with a reason on stderr and exit code 2.
BASH_GUARD = """\
import json, re, sys
data = json.load(sys.stdin)
if data.get("tool_name") != "Bash":
    sys.exit(0)
command = data.get("tool_input", {}).get("command", "")
if re.search(r"\\brm\\s+-[a-zA-Z]*r[a-zA-Z]*f", command):
    print("Blocked: rm -rf is not allowed; delete files one by one", file=sys.stderr)
    sys.exit(2)
"""
# A secrets guard as Claude Code users write it: Read of a .env file, by tool_input.file_path.
ENV_GUARD = """\
import json, sys
data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if data.get("tool_name") == "Read" and path.split("/")[-1].startswith(".env"):
    print(f"Blocked: {path} holds secrets", file=sys.stderr)
    sys.exit(2)
"""
# Appends its stdin (one JSON object) to the file named by its argument.
LOG = "import sys; open(sys.argv[1], 'a').write(sys.stdin.read().strip() + '\\n')"
SECRET = "sk-live-do-not-send-9f8e7d"


def command(script: Path, *args: Path) -> str:
    return " ".join(shlex.quote(str(part)) for part in (sys.executable, script, *args))


def settings(tmp_path: Path, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A settings.json `hooks` block as a Claude Code user has it."""
    (tmp_path / "bash_guard.py").write_text(BASH_GUARD)
    (tmp_path / "env_guard.py").write_text(ENV_GUARD)
    hooks: dict[str, Any] = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": command(tmp_path / "bash_guard.py")}],
            },
            {
                "matcher": "Read",
                "hooks": [
                    {
                        "type": "command",
                        "command": command(tmp_path / "env_guard.py"),
                        "timeout": 30,
                    }
                ],
            },
        ],
        **(extra or {}),
    }
    return {"permissions": {"allow": ["Bash(npm run test:*)"]}, "hooks": hooks}


def workspace_with_secrets(workspace: Path) -> None:
    (workspace / "build").mkdir()
    (workspace / "build" / "out.o").write_text("object")
    (workspace / ".env").write_text(f"API_KEY={SECRET}\n")


def push_dangerous_calls(server: ScriptedServer) -> None:
    server.push(
        ToolCalls([("run_command", {"command": "rm -rf ./build"})]),
        ToolCalls([("read_file", {"path": ".env"})]),
        Text("could not"),
    )


def tool_results(server: ScriptedServer) -> list[str]:
    last = server.requests[-1].messages
    return [str(m["content"]) for m in last if m["role"] == "tool"]


def sent_anywhere(server: ScriptedServer, text: str) -> bool:
    return any(text in json.dumps(request.body) for request in server.requests)


def logged(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_claude_code_guard_hooks_in_the_users_settings_block_rm_rf_and_reading_env(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """~/.claude/settings.json (here $CLAUDE_CONFIG_DIR's) is the user's own: its hooks run
    without a question, in full-auto too; a block naming events pleat does not run starts pleat
    with one line, and SessionEnd runs when the run ends."""
    (tmp_path / "log.py").write_text(LOG)
    end_log = workspace / "end.jsonl"  # hooks run in the sandbox: the log in the workspace
    log_end = {"hooks": [{"type": "command", "command": command(tmp_path / "log.py", end_log)}]}
    notify = {"hooks": [{"type": "command", "command": "notify-send pleat"}]}
    user_dir = tmp_path / "claude-home"
    user_dir.mkdir()
    block = settings(tmp_path, {"SessionEnd": [log_end], "PermissionRequest": [notify]})
    (user_dir / "settings.json").write_text(json.dumps(block))
    workspace_with_secrets(workspace)
    push_dangerous_calls(server)

    done = run_pleat(
        workspace, server, "-p", "clean and check", env={"CLAUDE_CONFIG_DIR": str(user_dir)}
    )

    assert done.returncode == 0, done.stderr
    assert (workspace / "build" / "out.o").exists()  # rm -rf never ran
    assert not sent_anywhere(server, SECRET)  # .env never reached the model
    results = [str(m["content"]) for m in server.requests[1].messages if m["role"] == "tool"]
    assert results[-1].endswith("Blocked: rm -rf is not allowed; delete files one by one")
    assert tool_results(server)[-1].endswith(
        f"Blocked: {workspace.resolve() / '.env'} holds secrets"
    )
    assert "hooks for PermissionRequest are read but not run" in done.stderr
    (end,) = logged(end_log)
    assert end["hook_event_name"] == "SessionEnd" and end["reason"] == "other"


def test_a_projects_hooks_run_only_once_approved(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """The same guards in the repository's .claude/settings.json: not run before the user
    approves them (headless: --yes approves, as it does a project's .mcp.json), run after."""
    claude_dir = workspace / ".claude"
    claude_dir.mkdir()
    (claude_dir / "settings.json").write_text(json.dumps(settings(tmp_path)))
    workspace_with_secrets(workspace)

    server.push(ToolCalls([("read_file", {"path": ".env"})]), Text("read it"))
    before = run_pleat(workspace, server, "-p", "what is in .env?", yes=False)
    assert before.returncode == 0, before.stderr
    assert ".claude/settings.json in this workspace has 2 hooks and settings not approved" in (
        before.stderr
    )
    assert sent_anywhere(server, SECRET)  # no guard ran: the read (a read runs) sent it

    server.requests.clear()
    push_dangerous_calls(server)
    after = run_pleat(workspace, server, "-p", "clean and check")  # --yes approves them
    assert after.returncode == 0, after.stderr
    assert (workspace / "build" / "out.o").exists()
    assert not sent_anywhere(server, SECRET)
    assert "not approved" not in after.stderr
