"""Hooks and MCP servers run in the sandbox as the model's commands do: a hook, a project's hook
and a project's stdio MCP server cannot write outside the workspace or connect anywhere (and
cannot say they should not be confined); the user's own config.toml may let one of its hooks or
servers out with `sandbox = false`."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

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


async def say_yes(_: ApprovalRequest) -> Decision:
    return Decision(True)


def probe_command(script: Path, target: Path, port: int, report: Path) -> str:
    return " ".join(
        shlex.quote(str(part)) for part in (sys.executable, script, target, port, report)
    )


async def test_a_hook_is_confined_unless_config_toml_lets_it_out(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "probe.py"
    script.write_text(PROBE_HOOK)
    with TcpListener() as listener:
        confined = probe_command(
            script, tmp_path / "by-confined.txt", listener.port, workspace / "confined.log"
        )
        free = probe_command(
            script, tmp_path / "by-free.txt", listener.port, workspace / "free.log"
        )
        specs = parse_hooks(
            {"PreToolUse": [{"command": confined}, {"command": free, "sandbox": False}]}
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
        assert listener.accepted == 1  # the free hook's; the confined one's never got through
    assert (workspace / "confined.log").read_text() == (
        "write: Permission denied; connect: Permission denied\n"
    )
    assert (workspace / "free.log").read_text() == "write: done; connect: done\n"
    assert not (tmp_path / "by-confined.txt").exists()
    session.close()


def test_a_projects_hooks_and_mcp_servers_are_confined_and_cannot_opt_out(
    server: ScriptedServer, workspace: Path, tmp_path: Path, pleat_home: Path
) -> None:
    script = tmp_path / "probe.py"
    script.write_text(PROBE_HOOK)
    with TcpListener() as listener:
        # The project's own Claude Code settings: a hook that asks not to be confined.
        hook = probe_command(script, tmp_path / "by-hook.txt", listener.port, workspace / "h.log")
        entry = {"type": "command", "command": hook, "sandbox": False}
        claude = workspace / ".claude"
        claude.mkdir()
        (claude / "settings.json").write_text(
            json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [entry]}]}})
        )
        # The project's .mcp.json server (asking the same), and the user's own server let out.
        project = {
            "command": sys.executable,
            "args": [str(ECHO_SERVER), "--probe"],
            "sandbox": False,
        }
        write_project_file(workspace, {"proj": project})
        write_config(pleat_home, echo_table("mine", probe=True, sandbox="false"))
        calls = [
            ("mcp__proj__probe", {"path": str(tmp_path / "by-proj.txt"), "port": listener.port}),
            ("mcp__mine__probe", {"path": str(tmp_path / "by-mine.txt"), "port": listener.port}),
        ]
        server.push(ToolCalls(calls), Text("done"))
        done = run_pleat(workspace, server, "-p", "probe")  # --yes: the project's files approved
        assert done.returncode == 0, done.stderr
        assert listener.accepted == 1  # the user's own server only
    by_project, by_mine = tool_results(server, 1)
    assert by_project == "write: Permission denied; connect: Permission denied"
    assert by_mine == "write: done; connect: done"
    assert (workspace / "h.log").read_text() == (
        "write: Permission denied; connect: Permission denied\n"
    )
    assert not (tmp_path / "by-proj.txt").exists() and not (tmp_path / "by-hook.txt").exists()
    assert (tmp_path / "by-mine.txt").read_text() == "written by the MCP server"
