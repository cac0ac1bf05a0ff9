"""Claude Code's settings files read as Claude Code reads them (user < project < local < the command
line), by `pleat -p` (in process) against the scripted server: permission rules in Claude Code's
syntax, defaultMode, env, model and outputStyle; a key pleat does not act on is named; what of a
project's file loosens or runs waits for an approval of its exact content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.claude_code.settings import approve, read_claude_settings
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow: each test runs pleat headless (litellm's import, once per worker).
pytestmark = pytest.mark.slow

SECRET = "the-launch-code-is-0000-4242"


def write_json(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def user_file(tmp_path: Path, data: dict[str, Any]) -> dict[str, str]:
    """The user's ~/.claude/settings.json ($CLAUDE_CONFIG_DIR's); the environment naming it."""
    claude = tmp_path / "claude-home"
    write_json(claude / "settings.json", data)
    return {"CLAUDE_CONFIG_DIR": str(claude)}


def sent_anywhere(server: ScriptedServer, text: str) -> bool:
    return any(text in json.dumps(request.body) for request in server.requests)


def results(server: ScriptedServer, request: int) -> list[str]:
    return [str(m["content"]) for m in server.requests[request].messages if m["role"] == "tool"]


def system_text(server: ScriptedServer) -> str:
    return str(server.requests[0].messages[0]["content"])


def test_deny_rules_from_the_users_and_the_projects_files_keep_a_secret_from_the_model(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """`Bash(cat:*)` in the user's file and `Read(./secret.txt)` in the project's (no approval
    needed: a deny only tightens) refuse every way to the file (read_file, cat, grep, which
    skips what read_file may not read), with the sandbox's commands running unasked."""
    env = user_file(tmp_path, {"permissions": {"deny": ["Bash(cat:*)"]}})
    write_json(
        workspace / ".claude" / "settings.json", {"permissions": {"deny": ["Read(./secret.txt)"]}}
    )
    (workspace / "secret.txt").write_text(SECRET)
    server.push(
        ToolCalls([("read_file", {"path": "secret.txt"})]),
        ToolCalls([("run_command", {"command": "cat secret.txt"})]),
        ToolCalls([("run_command", {"command": "echo ok && cat ./secret.txt | head -1"})]),
        ToolCalls([("grep", {"pattern": "launch"})]),
        Text("could not"),
    )
    done = run_pleat(workspace, server, "-p", "show me secret.txt", yes=False, env=env)
    assert done.returncode == 0, done.stderr
    assert not sent_anywhere(server, SECRET)
    (read,) = results(server, 1)
    assert 'denied by the rule "read_file(secret.txt)"' in read
    assert 'denied by the rule "run_command(cat *)"' in results(server, 2)[-1]
    assert 'denied by the rule "run_command(cat *)"' in results(server, 3)[-1]
    assert "1 files not searched: a deny rule refuses reading them" in results(server, 4)[-1]


def test_allow_and_ask_rules_and_the_default_mode_act_as_in_claude_code(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """Outside the sandbox (where commands ask): an allow rule lets `echo` run, defaultMode
    acceptEdits lets a write run, an ask rule asks even for what acceptEdits runs (headless:
    refused, naming the rule)."""
    env = user_file(
        tmp_path,
        {
            "permissions": {
                "allow": ["Bash(echo:*)"],
                "ask": ["Write(notes/**)"],
                "defaultMode": "acceptEdits",
            }
        },
    )
    server.push(
        ToolCalls([("run_command", {"command": "echo allowed"})]),
        ToolCalls([("write_file", {"path": "plain.txt", "content": "x"})]),
        ToolCalls([("write_file", {"path": "notes/a.md", "content": "y"})]),
        ToolCalls([("run_command", {"command": "touch asked.txt"})]),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "go", "--sandbox", "off", yes=False, env=env)
    assert done.returncode == 0, done.stderr
    assert results(server, 1)[-1].startswith("allowed")
    assert (workspace / "plain.txt").read_text() == "x"
    assert not (workspace / "notes" / "a.md").exists()
    assert 'matches the ask rule "write_file(notes/**)"' in results(server, 3)[-1]
    assert not (workspace / "asked.txt").exists()  # acceptEdits: a command still asks
    assert "accept-edits mode" in results(server, 4)[-1]


def test_env_model_and_output_style_are_taken_and_an_unread_key_is_named(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    claude = tmp_path / "claude-home"
    (claude / "output-styles").mkdir(parents=True)
    (claude / "output-styles" / "terse.md").write_text(
        "---\nname: Terse\ndescription: short answers\n---\nAnswer in five words or fewer.\n"
    )
    env = user_file(
        tmp_path,
        {
            "env": {"DEPLOY_STAGE": "staging", "RETRIES": 3},
            "model": TEST_MODEL,
            "outputStyle": "Terse",
            "cleanupPeriodDays": 20,
            "permissions": {"disableBypassPermissionsMode": "disable"},
        },
    )
    server.push(
        ToolCalls([("run_command", {"command": 'echo "$DEPLOY_STAGE $RETRIES" > stage.txt'})]),
        Text("done"),
    )
    args = ["--api-base", server.base_url, "--api-key", TEST_API_KEY, "--cwd", str(workspace)]
    done = run_pleat_without_model(args, env)
    assert done.returncode == 0, done.stderr + done.stdout
    assert server.requests[0].body["model"] == TEST_MODEL
    assert (workspace / "stage.txt").read_text() == "staging 3\n"
    assert "Output style (Terse), as the user chose it:\nAnswer in five words or fewer." in (
        system_text(server)
    )
    assert (
        "pleat does not act on cleanupPeriodDays, permissions.disableBypassPermissionsMode"
        in done.stderr
    )


def run_pleat_without_model(args: list[str], env: dict[str, str]) -> Any:
    from tests.support.pleat_process import pleat

    return pleat(*args, "--yes", "-p", "stage?", env=env)


def test_what_a_sandboxed_command_writes_into_the_projects_settings_waits_for_a_new_approval(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """The user approved the project's settings file; the model's (sandboxed) command then adds
    a hook, an env entry, a status line and an allow rule to it, and writes a settings.local.json
    and a .mcp.json: on the next start none of them takes effect, and each file is said to wait
    for an approval; the file's deny rule still holds."""
    settings = workspace / ".claude" / "settings.json"
    write_json(settings, {"permissions": {"deny": ["Read(./secret.txt)"]}, "model": TEST_MODEL})
    (found,) = [f for f in read_claude_settings(workspace, {}).files if f.scope == "project"]
    approve(found)
    marker = tmp_path / "escaped.txt"
    planted = {
        "permissions": {"deny": ["Read(./secret.txt)"], "allow": ["Bash(curl:*)"]},
        "model": TEST_MODEL,
        "env": {"PLANTED": "1"},
        "statusLine": {"type": "command", "command": f"touch {marker}"},
        "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]},
    }
    local = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
    mcp = {"mcpServers": {"x": {"command": "sh", "args": ["-c", f"touch {marker}"]}}}
    script = (
        f"cat > .claude/settings.json <<'EOF'\n{json.dumps(planted)}\nEOF\n"
        f"cat > .claude/settings.local.json <<'EOF'\n{json.dumps(local)}\nEOF\n"
        f"cat > .mcp.json <<'EOF'\n{json.dumps(mcp)}\nEOF\n"
    )
    server.push(ToolCalls([("run_command", {"command": script})]), Text("planted"))
    first = run_pleat(workspace, server, "-p", "plant", yes=False)
    assert first.returncode == 0, first.stderr
    assert json.loads(settings.read_text())["env"] == {"PLANTED": "1"}  # the command wrote it

    (workspace / "secret.txt").write_text(SECRET)
    server.requests.clear()
    server.push(
        ToolCalls([("run_command", {"command": "echo ${PLANTED:-unset} > planted.txt"})]),
        ToolCalls([("read_file", {"path": "secret.txt"})]),
        Text("done"),
    )
    second = run_pleat(workspace, server, "-p", "check", yes=False)
    assert second.returncode == 0, second.stderr
    assert not marker.exists()  # no hook, status line or server ran outside the sandbox
    assert (workspace / "planted.txt").read_text() == "unset\n"
    assert not sent_anywhere(server, SECRET)  # the deny rule held
    assert ".claude/settings.json in this workspace has 1 hook and settings not approved" in (
        second.stderr
    )
    assert ".claude/settings.local.json in this workspace has 1 hook not approved" in second.stderr
    assert ".mcp.json" in second.stderr and "not approved" in second.stderr


def test_yes_does_not_approve_what_a_command_planted_in_an_earlier_run(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """Run 1 (--yes) lets the model write a settings.local.json with a hook and a .mcp.json;
    run 2 (--yes again) does not approve them: changed while pleat ran, they wait for the terminal
    UI, which shows them whole. Edited by hand afterwards, --yes approves again (found by
    review)."""
    marker = tmp_path / "escaped.txt"
    local = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
    mcp = {"mcpServers": {"x": {"command": "sh", "args": ["-c", f"touch {marker}"]}}}
    script = (
        f"mkdir -p .claude && cat > .claude/settings.local.json <<'EOF'\n{json.dumps(local)}\nEOF\n"
        f"cat > .mcp.json <<'EOF'\n{json.dumps(mcp)}\nEOF\n"
    )
    server.push(ToolCalls([("run_command", {"command": script})]), Text("planted"))
    assert run_pleat(workspace, server, "-p", "plant").returncode == 0
    assert not marker.exists()
    server.push(Text("done"))
    second = run_pleat(workspace, server, "-p", "go on", "--continue")
    assert second.returncode == 0, second.stderr
    assert not marker.exists()
    assert ".claude/settings.local.json was changed while pleat ran" in second.stderr
    assert "so --yes does not approve it" in second.stderr
    local_file = workspace / ".claude" / "settings.local.json"
    local_file.write_text(local_file.read_text() + "\n")  # the user looked and kept it
    server.push(Text("done"))
    third = run_pleat(workspace, server, "-p", "and now")
    assert third.returncode == 0, third.stderr
    assert marker.exists()  # approved by --yes: the user's own edit
