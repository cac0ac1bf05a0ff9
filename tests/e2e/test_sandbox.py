"""The sandbox through the agent, with real processes confined by the kernel (Landlock and a
network namespace): what a command cannot do outside the workspace, what it can do inside, the
questions ask mode asks and does not, the denial the model reads, and the fallback where the
kernel cannot enforce it. Hooks and MCP servers: tests/e2e/test_sandbox_hooks_mcp.py."""

from __future__ import annotations

import asyncio
import json
import shlex
import socket
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent, permissions_from
from agent.config import Config
from agent.permissions.policy import ApprovalRequest, Decision
from agent.turn.loop import Agent
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.faults_harness import turn
from tests.support.git_support import git
from tests.support.hook_support import tool_results
from tests.support.mcp_support import pids_holding
from tests.support.pleat_process import run_pleat, run_pleat_process
from tests.support.sandbox_support import CONNECT, TcpListener, needs_sandbox
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tools.sandbox.modes import NO_LANDLOCK_VARIABLE

pytestmark = needs_sandbox


class Asked:
    """An approval callback: says `answer` ("yes", "no" or "always") and keeps each request."""

    def __init__(self, agent: list[Agent], answer: str = "yes") -> None:
        self.requests: list[ApprovalRequest] = []
        self.answer = answer
        self._agent = agent

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        if self.answer == "always":
            self._agent[0].permissions.remember(request.always)
        return Decision(self.answer != "no")


def agent_for(
    server: ScriptedServer, workspace: Path, answer: str = "yes", **config: Any
) -> tuple[Session, Agent, Asked]:
    settings = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, **config)
    session = Session.create(workspace, model=TEST_MODEL)
    holder: list[Agent] = []
    asked = Asked(holder, answer)
    agent = build_agent(
        settings, workspace, asked, session=session, permissions=permissions_from(settings)
    )
    holder.append(agent)
    return session, agent, asked


async def run_commands(
    server: ScriptedServer, agent: Agent, *calls: str | dict[str, Any]
) -> list[str]:
    """One model step calling run_command for each of `calls` (a command line, or the whole
    arguments), then "done"; the results the model read."""
    arguments = [{"command": c} if isinstance(c, str) else c for c in calls]
    server.push(ToolCalls([("run_command", a) for a in arguments]), Text("done"))
    await turn(agent, "work")
    return tool_results(server, 1)


async def test_a_command_changes_nothing_outside_the_workspace_and_the_model_hears_why(
    server: ScriptedServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    kept = tmp_path / "kept.txt"
    kept.write_text("keep")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace / "out").symlink_to(elsewhere)  # inside the workspace, pointing out of it
    in_tmp = Path("/tmp") / f"pleat-sandbox-test-{uuid.uuid4().hex}"
    session, agent, asked = agent_for(server, workspace)
    results = await run_commands(
        server,
        agent,
        "echo x > ~/.bashrc",
        f"rm -f {kept}",
        f"echo more >> {kept}",
        "echo x > out/planted.txt",
        f"mkdir {in_tmp}",
    )
    assert asked.requests == []  # ask mode: a confined command runs without a question
    assert list(home.iterdir()) == []
    assert kept.read_text() == "keep"
    assert list(elsewhere.iterdir()) == []
    assert not in_tmp.exists()
    for result, refused in zip(
        results,
        [f"{home}/.bashrc", str(kept), str(kept), f"out/planted.txt -> {elsewhere}", str(in_tmp)],
        strict=True,
    ):
        assert "exit code: 0" not in result
        assert "[pleat: the sandbox (workspace-write) seems to have refused changing" in result
        assert refused in result and "(outside the workspace)" in result
        assert "no_sandbox: true" in result  # how to ask for it
    session.close()


async def test_no_connection_leaves_the_sandbox_not_even_from_a_child_process(
    server: ScriptedServer, workspace: Path
) -> None:
    with TcpListener() as listener:
        connect = f"{shlex.quote(sys.executable)} -c {shlex.quote(CONNECT)} {listener.port}"
        child = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
            f"import subprocess, sys; sys.exit(subprocess.call({connect!r}, shell=True))"
        )
        session, agent, asked = agent_for(server, workspace)
        direct, through_child = await run_commands(
            server, agent, connect, f"sh -c {shlex.quote(child)} &\nwait $!"
        )
        assert listener.accepted == 0
    assert asked.requests == []
    for result in (direct, through_child):
        assert "exit code: 0" not in result
        assert "seems to have refused a network connection or a Unix socket" in result
    session.close()


async def test_no_unix_socket_reaches_a_process_outside_but_socket_pairs_work(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """A Unix socket (a Docker daemon's, the user's D-Bus) would let a process outside the
    sandbox act for the command: none can be made, even with the network open; socketpair(),
    which asyncio and multiprocessing use, still works."""
    path = tmp_path / "daemon.sock"
    outside = socket.socket(socket.AF_UNIX)
    outside.bind(str(path))
    outside.listen()
    outside.setblocking(False)
    talk = f"import socket; socket.socket(socket.AF_UNIX).connect({str(path)!r})"
    pair = "import asyncio, socket; socket.socketpair(); asyncio.run(asyncio.sleep(0))"
    python = shlex.quote(sys.executable)
    session, agent, _ = agent_for(server, workspace, sandbox_network=True)
    refused, paired = await run_commands(
        server, agent, f"{python} -c {shlex.quote(talk)}", f"{python} -c {shlex.quote(pair)}"
    )
    with pytest.raises(BlockingIOError):
        outside.accept()  # nobody connected
    outside.close()
    assert "PermissionError: [Errno 13] Permission denied" in refused
    assert "seems to have refused a Unix socket (the sandbox closes them)" in refused
    assert "exit code: 0" in paired
    session.close()


async def test_the_network_opens_by_setting_or_for_a_command_an_allow_rule_names(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "connect.py").write_text(CONNECT)
    with TcpListener() as listener:
        command = f"{shlex.quote(sys.executable)} connect.py {listener.port}"
        session, agent, _ = agent_for(server, workspace, allow=("run_command(*connect.py *)",))
        (named,) = await run_commands(server, agent, command)
        assert "exit code: 0" in named and listener.accepted == 1
        session.close()
        server.requests.clear()
        session, agent, _ = agent_for(server, workspace, sandbox_network=True)
        other = f"{shlex.quote(sys.executable)} -c {shlex.quote(CONNECT)} {listener.port}"
        (opened,) = await run_commands(server, agent, other)
        assert "exit code: 0" in opened and listener.accepted == 2
        session.close()


async def test_a_workspaces_ordinary_work_runs_in_the_sandbox(
    server: ScriptedServer, workspace: Path, no_git_above: None
) -> None:
    git(workspace, "init", "-q")
    python = shlex.quote(sys.executable)
    session, agent, asked = agent_for(server, workspace)
    results = await run_commands(
        server,
        agent,
        "printf 'def add(a, b):\\n    return a - b\\n' > calc.py",
        "sed -i 's/a - b/a + b/' calc.py",
        "printf 'from calc import add\\n\\ndef test_add():\\n    assert add(2, 3) == 5\\n' >t.py",
        "mv t.py test_calc.py",
        f"{python} -m pytest -q -p no:cacheprovider test_calc.py",
        f"{python} -c 'import tempfile; tempfile.NamedTemporaryFile().write(b\"scratch\")'",
        "git add -A && git -c user.name=t -c user.email=t@example.com commit -qm add",
        "git log --format=%s",
    )
    assert asked.requests == []
    assert all("exit code: 0" in result for result in results), results
    assert "1 passed" in results[4]
    assert results[7].startswith("add")
    assert "return a + b" in (workspace / "calc.py").read_text()
    session.close()


async def test_read_only_writes_nowhere_but_its_temporary_directory(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent, _ = agent_for(server, workspace, sandbox="read-only")
    inside, scratch = await run_commands(
        server, agent, "echo x > notes.txt", 'echo x > "$TMPDIR/scratch" && cat "$TMPDIR/scratch"'
    )
    assert not (workspace / "notes.txt").exists()
    assert "refused changing notes.txt (read-only mode)" in inside
    assert "exit code: 0" in scratch
    session.close()


async def test_leaving_the_sandbox_always_asks_and_always_means_that_exact_command(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "written-outside.txt"
    outside = {"command": f"echo x >> {target}", "no_sandbox": True}
    other = {"command": f"echo y >> {target}", "no_sandbox": True}
    session, agent, asked = agent_for(
        server, workspace, answer="always", permission_mode="full-auto"
    )
    await run_commands(server, agent, outside)
    assert [r.outside_sandbox for r in asked.requests] == [True]  # even in full-auto
    assert asked.requests[0].always == (f"outside the sandbox: {outside['command']}",)
    server.requests.clear()
    server.push(
        ToolCalls([("run_command", outside)]), ToolCalls([("run_command", other)]), Text("ok")
    )
    await turn(agent, "again")
    assert len(asked.requests) == 2  # the same command ran unasked; another one asked
    assert target.read_text() == "x\nx\ny\n"  # run outside the sandbox, as approved
    session.close()


async def test_leaving_the_sandbox_refused_runs_nothing(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "never.txt"
    session, agent, _ = agent_for(server, workspace, answer="no")
    (result,) = await run_commands(
        server, agent, {"command": f"touch {target}", "no_sandbox": True}
    )
    assert result.startswith("refused: the user did not approve run_command")
    assert not target.exists()
    session.close()


def test_headless_without_landlock_says_so_once_and_every_command_asks(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(ToolCalls([("run_command", {"command": "touch made.txt"})]), Text("done"))
    done = run_pleat_process(  # a process: the machine's support is asked once per process
        workspace, server, "-p", "make a file", yes=False, env={NO_LANDLOCK_VARIABLE: "1"}
    )
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "sandbox workspace-write" in line]
    assert said == [
        "pleat: note: sandbox workspace-write asked for, but not enforced here (the kernel has "
        "no Landlock): commands run unconfined, so they ask first as with the sandbox off "
        "(unless your mode or allow rules let them run)"
    ]
    (result,) = tool_results(server, 1)
    assert result.startswith("refused:")  # it asked; headless, nobody can say yes
    assert not (workspace / "made.txt").exists()


def test_stream_json_init_and_slash_sandbox_say_the_mode(
    server: ScriptedServer, workspace: Path
) -> None:
    done = run_pleat(workspace, server, "-p", "/sandbox")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("sandbox workspace-write (no network); file system by Landlock")
    assert f"commands may change: {workspace.resolve()}, " in done.stdout
    server.push(Text("hi"))
    done = run_pleat(workspace, server, "-p", "hi", "--output-format", "stream-json", "--verbose")
    init = json.loads(done.stdout.splitlines()[0])
    assert init["sandbox"] == {"mode": "workspace-write", "enforced": True, "network": False}


async def test_nothing_a_command_started_outlives_it_and_it_sees_only_its_own_processes(
    server: ScriptedServer, workspace: Path
) -> None:
    """A process that left the command's session (setsid, a double fork) went on running after
    the command had ended, free to change the workspace after the user looked (found by
    review): the command's PID namespace ends it with the command. Inside, /proc shows the
    command's own processes only (not pleat's command line, which may hold a key)."""
    token = f"{uuid.uuid4().int % 10**6 + 10**6}"  # a sleep no other process runs
    left = f"setsid sh -c 'sleep {token}; echo late > late.txt' </dev/null >/dev/null 2>&1 &"
    session, agent, _ = agent_for(server, workspace)
    started, listing = await run_commands(
        server, agent, f"{left} sleep 0.2; pgrep -f 'sleep {token}' && echo running", "ls /proc"
    )
    assert "running" in started  # it did start, and outlived its shell while the command ran
    for _ in range(200):  # the kernel ends the namespace's processes as the command ends
        if not pids_holding(f"sleep {token}"):
            break
        await asyncio.sleep(0.05)
    assert not pids_holding(f"sleep {token}")
    assert not (workspace / "late.txt").exists()
    pids = [int(word) for word in listing.split() if word.isdigit()]
    assert pids and max(pids) < 10  # the init, the shell, ls: not the machine's processes
    session.close()
