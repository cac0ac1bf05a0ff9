"""The sandbox's boundary where Claude Code and Codex draw it: the model's commands are confined;
the hooks and MCP servers the user configured or approved run as the user, unless one says
`sandbox = true`. A confined hook or server the sandbox refused something is said to be the
sandbox's doing, and is never read as a hook's block or "go on"."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent, permissions_from
from agent.config import Config
from agent.hooks.config import parse_hooks
from agent.permissions.policy import ApprovalRequest, Decision
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.faults_harness import turn
from tests.support.hook_support import tool_results
from tests.support.mcp_support import ECHO_SERVER, echo_table, write_config, write_project_file
from tests.support.pleat_process import run_pleat
from tests.support.sandbox_support import TcpListener, needs_sandbox
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

pytestmark = needs_sandbox

# A hook that tries to write the file given as its first argument and to connect to the port
# given as its second; it writes what happened into the workspace (where it may write).
PROBE_HOOK = """\
import socket, sys
said = []
try:
    open(sys.argv[1], "w").write("written by a hook")
    said.append("write: done")
except OSError as error:
    said.append("write: " + error.strerror)
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=5).close()
    said.append("connect: done")
except OSError as error:
    said.append("connect: " + str(error.strerror))
open(sys.argv[3], "a").write("; ".join(said) + "\\n")
"""
# The logging hook of Claude Code's hooks guide, as it is written there: every Bash command with
# its description, appended to a log in ~/.claude.
GUIDE_LOGGING_HOOK = (
    'jq -r \'"\\(.tool_input.command) - \\(.tool_input.description // "No description")"\' '
    ">> ~/.claude/bash-command-log.txt"
)
# A Stop hook that logs the end of each turn the same way (a shell redirection: when it cannot
# write, /bin/sh exits 2, which a Stop hook's exit code means "go on").
STOP_LOGGING_HOOK = "jq -c '{session_id, stop_hook_active}' >> ~/.claude/stop-log.jsonl"
BOTH_DONE = "write: done; connect: done"
BOTH_REFUSED = "write: Permission denied; connect: Permission denied"


async def say_yes(_: ApprovalRequest) -> Decision:
    return Decision(True)


def probe_command(script: Path, target: Path, port: int, report: Path) -> str:
    return " ".join(
        shlex.quote(str(part)) for part in (sys.executable, script, target, port, report)
    )


async def test_a_hook_runs_as_you_unless_it_opts_into_the_sandbox(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "probe.py"
    script.write_text(PROBE_HOOK)
    with TcpListener() as listener:
        mine = probe_command(script, tmp_path / "by-mine.txt", listener.port, workspace / "m.log")
        boxed = probe_command(script, tmp_path / "by-boxed.txt", listener.port, workspace / "b.log")
        specs = parse_hooks(
            {"PreToolUse": [{"command": mine}, {"command": boxed, "sandbox": True}]}
        )
        settings = Config(
            model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, hooks=specs
        )
        session = Session.create(workspace, model=TEST_MODEL)
        agent = build_agent(
            settings, workspace, say_yes, session=session, permissions=permissions_from(settings)
        )
        server.push(ToolCalls([("run_command", {"command": "true"})]), Text("done"))
        await turn(agent, "go")
        assert listener.accepted == 1  # the user's hook's; the opted-in one's never got through
    assert (workspace / "m.log").read_text() == BOTH_DONE + "\n"
    assert (workspace / "b.log").read_text() == BOTH_REFUSED + "\n"
    assert (tmp_path / "by-mine.txt").exists() and not (tmp_path / "by-boxed.txt").exists()
    session.close()


def test_approved_project_hooks_and_servers_run_as_you_and_may_opt_in(
    server: ScriptedServer, workspace: Path, tmp_path: Path, pleat_home: Path
) -> None:
    script = tmp_path / "probe.py"
    script.write_text(PROBE_HOOK)
    with TcpListener() as listener:
        # The project's own Claude Code settings: a hook, approved (--yes) with its command shown.
        hook = probe_command(script, tmp_path / "by-hook.txt", listener.port, workspace / "h.log")
        claude = workspace / ".claude"
        claude.mkdir()
        entry = {"type": "command", "command": hook}
        (claude / "settings.json").write_text(
            json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [entry]}]}})
        )
        # The project's .mcp.json server asks to be confined; the user's own server does not.
        project = {
            "command": sys.executable,
            "args": [str(ECHO_SERVER), "--probe"],
            "sandbox": True,
        }
        write_project_file(workspace, {"proj": project})
        write_config(pleat_home, echo_table("mine", probe=True))
        calls = [
            ("mcp__proj__probe", {"path": str(tmp_path / "by-proj.txt"), "port": listener.port}),
            ("mcp__mine__probe", {"path": str(tmp_path / "by-mine.txt"), "port": listener.port}),
        ]
        server.push(ToolCalls(calls), Text("done"))
        done = run_pleat(workspace, server, "-p", "probe")  # --yes: the project's files approved
        assert done.returncode == 0, done.stderr
        assert listener.accepted == 2  # the project's hook and the user's own server
    by_project, by_mine = tool_results(server, 1)
    assert by_project == BOTH_REFUSED
    assert by_mine == BOTH_DONE
    assert (workspace / "h.log").read_text() == BOTH_DONE + "\n"
    assert not (tmp_path / "by-proj.txt").exists()
    assert (tmp_path / "by-mine.txt").read_text() == "written by the MCP server"


def user_settings(home: Path, hooks: dict[str, Any]) -> dict[str, str]:
    """~/.claude/settings.json under a home of the test's: the environment that points at it."""
    claude = home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(claude)}


def logging_hooks(*, sandbox: bool = False) -> dict[str, Any]:
    extra = {"sandbox": True} if sandbox else {}
    bash = {"type": "command", "command": GUIDE_LOGGING_HOOK, **extra}
    stop = {"type": "command", "command": STOP_LOGGING_HOOK, **extra}
    return {
        "PreToolUse": [{"matcher": "Bash", "hooks": [bash]}],
        "Stop": [{"hooks": [stop]}],
    }


def push_two_commands(server: ScriptedServer) -> None:
    server.push(
        ToolCalls([("run_command", {"command": "echo one > one.txt"})]),
        ToolCalls([("run_command", {"command": "echo two > two.txt"})]),
        Text("both written"),
    )


@pytest.mark.slow
def test_the_hooks_guides_logging_hooks_let_every_command_run_and_write_their_logs(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """With the default sandbox: the commands run confined, the user's logging hooks as the
    user; the Stop hook adds no model request (3: two commands and the answer, as without
    hooks)."""
    home = tmp_path / "home"
    env = user_settings(home, logging_hooks())
    push_two_commands(server)
    done = run_pleat(workspace, server, "-p", "write both", env=env)
    assert done.returncode == 0, done.stderr
    assert (workspace / "one.txt").read_text() == "one\n"
    assert (workspace / "two.txt").read_text() == "two\n"
    assert (home / ".claude" / "bash-command-log.txt").read_text().splitlines() == [
        "echo one > one.txt - No description",
        "echo two > two.txt - No description",
    ]
    (stopped,) = (home / ".claude" / "stop-log.jsonl").read_text().splitlines()
    assert json.loads(stopped)["stop_hook_active"] is False
    assert len(server.requests) == 3
    assert done.stdout.count("both written") == 1


@pytest.mark.slow
def test_a_confined_hook_the_sandbox_refuses_blocks_nothing_and_says_why(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """The same hooks opted into the sandbox cannot write ~/.claude: /bin/sh exits 2, which is
    no block and no "go on"; one line says the sandbox refused it and how to let it out."""
    home = tmp_path / "home"
    env = user_settings(home, logging_hooks(sandbox=True))
    push_two_commands(server)
    done = run_pleat(workspace, server, "-p", "write both", env=env)
    assert done.returncode == 0, done.stderr
    assert (workspace / "one.txt").exists() and (workspace / "two.txt").exists()
    assert not (home / ".claude" / "bash-command-log.txt").exists()
    assert len(server.requests) == 3  # the Stop hook's exit 2 did not make the turn go on
    assert done.stdout.count("both written") == 1
    assert "was refused by the sandbox (changing" in done.stderr
    assert "remove that to run it as you" in done.stderr
    assert "blocked" not in done.stderr.lower()
