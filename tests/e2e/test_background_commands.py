"""Background commands through the agent and `pleat -p`, with real processes confined by the
kernel: the issue's `sleep 30; echo done` started, read and stopped by the model; the same
sandbox and deny rules as a foreground command; a headless run's and a sub-agent's background
commands gone when the run or the sub-agent ends, and when pleat dies of an error (the atexit
net); Claude Code's names in stream-json."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
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
from tests.support.constants import REPO_ROOT, TEST_API_KEY, TEST_MODEL
from tests.support.faults_harness import turn
from tests.support.hook_support import tool_results
from tests.support.mcp_support import kill_holding, wait_all_gone, wait_until
from tests.support.pleat_process import run_pleat
from tests.support.sandbox_support import needs_sandbox
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tools.background_tools import background_of

pytestmark = [pytest.mark.slow, needs_sandbox]


def sleeper() -> tuple[str, str]:
    """The issue's command, with a number of its own in its sleep (the test finds its processes
    by it: in the sandbox's PID namespace `$$` names another pid), and a file written once the
    sleep has started (in the workspace: the sandbox lets it write there)."""
    token = f"30.{uuid.uuid4().int % 10**9:09d}"
    return f"sleep {token} & echo started > sleep.pid; wait; echo done", token


async def refuse(_: ApprovalRequest) -> Decision:
    return Decision(False)


def agent_for(server: ScriptedServer, workspace: Path, **config: Any) -> tuple[Session, Agent]:
    settings = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, **config)
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(
        settings, workspace, refuse, session=session, permissions=permissions_from(settings)
    )
    return session, agent


def when_file(path: Path, reply: ToolCalls | Text) -> Any:
    """A scripted step sent once `path` exists (the command got that far)."""

    def respond(_: dict[str, Any]) -> ToolCalls | Text:
        wait_until(lambda: path.exists() and path.read_text().strip())
        return reply

    return respond


async def test_the_model_starts_reads_and_stops_a_background_command(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = agent_for(server, workspace)
    command, token = sleeper()
    try:
        server.push(
            ToolCalls([("run_command", {"command": command, "background": True})]),
            when_file(workspace / "sleep.pid", ToolCalls([("command_output", {"id": "bg-1"})])),
            ToolCalls([("command_stop", {"id": "bg-1"})]),
            ToolCalls([("command_output", {"id": "bg-1"})]),
            Text("stopped it"),
        )
        await turn(agent, "start the sleeper, look at it, stop it")
        started, read, stopped, last = (tool_results(server, n)[-1] for n in range(1, 5))
        assert started.startswith("started in the background as bg-1")  # an answer at once
        assert read.endswith("bg-1: still running")
        assert stopped.startswith("bg-1 stopped")
        assert "done" not in last and last.endswith("bg-1: stopped (exit code -9)")
        assert wait_all_gone(token)
    finally:
        session.close()
        kill_holding(token)


async def test_a_background_command_has_the_foreground_sandbox_and_deny_rules(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    session, agent = agent_for(server, workspace, deny=("run_command(curl *)",))
    try:
        server.push(
            ToolCalls(
                [
                    ("run_command", {"command": f"echo x > {outside}", "background": True}),
                    ("run_command", {"command": "curl http://x.invalid", "background": True}),
                ]
            ),
            Text("step"),
        )
        await turn(agent, "try both")
        written, denied = tool_results(server, 1)
        assert written.startswith("started in the background as bg-1")
        assert "denied" in denied.lower() and "bg-2" not in denied  # never started
        background = background_of(agent.registry)
        assert background is not None
        (job,) = background.all()
        for _ in range(600):  # the event loop runs its watcher meanwhile
            if job.ended:
                break
            await asyncio.sleep(0.05)
        assert job.exit_code not in (0, None) and not outside.exists()  # the sandbox refused it
        assert "outside.txt" in job.path.read_text()
    finally:
        session.close()


async def test_a_sub_agents_background_command_stops_when_it_ends(
    server: ScriptedServer, workspace: Path
) -> None:
    session, agent = agent_for(server, workspace)
    command, token = sleeper()
    try:
        task = {"description": "start a server", "prompt": "start it in the background"}
        server.push(
            ToolCalls([("task", task)]),
            ToolCalls([("run_command", {"command": command, "background": True})]),
            when_file(workspace / "sleep.pid", Text("started")),
            Text("the sub-agent is done"),
        )
        await turn(agent, "delegate")
        assert (workspace / "sleep.pid").exists() and wait_all_gone(token)
        parent = background_of(agent.registry)
        assert parent is not None and parent.all() == []  # not the parent's
    finally:
        session.close()
        kill_holding(token)


def test_a_headless_runs_background_commands_end_with_it_in_claude_codes_names(
    server: ScriptedServer, workspace: Path
) -> None:
    command, token = sleeper()
    server.push(
        ToolCalls([("run_command", {"command": command, "background": True})]),
        when_file(workspace / "sleep.pid", ToolCalls([("command_output", {"id": "bg-1"})])),
        Text("left it running"),
    )
    done = run_pleat(workspace, server, "-p", "start it", "--output-format", "stream-json")
    try:
        assert done.returncode == 0, done.stderr
        assert (workspace / "sleep.pid").exists()
        assert wait_all_gone(token)  # the run ended: so did they
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        uses = [
            block
            for line in lines
            if line.get("type") == "assistant"
            for block in line["message"]["content"]
            if block.get("type") == "tool_use"
        ]
        assert [(u["name"], u["input"]) for u in uses] == [
            ("Bash", {"command": command, "run_in_background": True}),
            ("BashOutput", {"bash_id": "bg-1"}),
        ]
    finally:
        kill_holding(token)


# A program that starts a background command through the registry, then dies of an error with
# its event loop left open (no close, no cancelled watcher): only the atexit net is left.
CRASHING = """
import asyncio, pathlib, sys, time
from sessions.outputs import KeptOutputs
from tools.base import ToolContext
from tools.registry import default_registry

workspace = pathlib.Path(sys.argv[1])
ctx = ToolContext(workspace, outputs=KeptOutputs(workspace.parent / "outputs"))
loop = asyncio.new_event_loop()
call = {"command": sys.argv[2], "background": True}
loop.run_until_complete(default_registry().dispatch("run_command", call, ctx))
while not (workspace / "sleep.pid").exists():
    time.sleep(0.05)
raise RuntimeError("a crash")
"""


def test_an_error_out_of_pleat_still_kills_its_background_commands(workspace: Path) -> None:
    command, token = sleeper()
    done = subprocess.run(
        [sys.executable, "-c", CRASHING, str(workspace), command],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        timeout=120,
    )
    try:
        assert done.returncode == 1 and "RuntimeError: a crash" in done.stderr
        assert wait_all_gone(token)
    finally:
        kill_holding(token)
