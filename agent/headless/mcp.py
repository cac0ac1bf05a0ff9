"""MCP in a headless run: which servers it uses, started before the request and stopped after it,
their failures one stderr line each (`pleat -p "/mcp"` is agent/slash/listings.py's)."""

from __future__ import annotations

import os
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from agent.claude_code.run_writes import written_by_a_run
from agent.mcp.disclosure import withheld_line
from agent.mcp.manager import McpServers
from agent.mcp.project_file import PROJECT_FILE, is_approved
from agent.mcp.server import McpServer
from agent.mcp.settings import ServerSettings
from agent.mcp.sources import gather_servers
from tools.paths import workspace_root
from tools.sandbox.policy import Sandbox

if TYPE_CHECKING:
    from agent.turn.loop import Agent


def headless_servers(
    configured: tuple[ServerSettings, ...],
    workspace: Path,
    *,
    approve_everything: bool,
    err: TextIO,
    sandbox: Sandbox | None = None,
) -> McpServers:
    """The servers of config.toml and ~/.claude.json, and those of the workspace's .mcp.json
    when it was approved in the TUI or the run approves everything (--yes); otherwise one line
    says they were not started and how to allow them (agent/mcp/sources.py: which one a name
    shared by several means). Their stdio programs run in `sandbox`."""
    servers = McpServers(workspace, configured, sandbox)
    servers.searchable = False  # one turn: what tool_search found could never join
    run = gather_servers(configured, workspace)
    project = run.project
    for problem in run.problems:
        servers.skipped.append(problem)
        print(f"pleat: note: {problem}", file=err)
    servers.skipped.extend(run.hidden)
    servers.add(run.claude)
    if project is None or not project.servers:
        return servers
    planted = written_by_a_run(workspace_root(workspace) / PROJECT_FILE)
    approved = (approve_everything and not planted) or is_approved(workspace, project)
    added, hidden = run.project_servers(approved)
    servers.skipped.extend(hidden)
    for server in servers.add(added):
        withheld = withheld_line(server.settings, os.environ)
        if withheld is not None:
            print(f"pleat: note: MCP server {server.name}: {withheld}", file=err)
    if not approved:
        names = ", ".join(server.name for server in project.servers)
        fix = (
            "; it was changed while pleat ran (a command may have written it), so --yes does "
            "not approve it"
            if planted and approve_everything
            else ", or pass --yes"
        )
        line = (
            f"{PROJECT_FILE} in this workspace names MCP servers ({names}), not started: "
            f"approve the file in pleat's terminal UI (it asks at start){fix}"
        )
        servers.skipped.append(line)
        print(f"pleat: {line}", file=err)
    return servers


def say_change(server: McpServer, err: TextIO) -> None:
    """One stderr line when a server fails (at start or later), and one for each note about
    tools it has that are not offered (each said once)."""
    if server.state == "failed":
        print(f"pleat: MCP server {server.name} failed: {server.error}", file=err)
    elif server.state == "running":
        for note in server.new_notes():
            print(f"pleat: note: MCP server {server.name}: {note}", file=err)


async def with_servers(
    servers: McpServers, agent: Agent, work: Coroutine[Any, Any, int], err: TextIO
) -> int:
    """Start the servers (in parallel), wait until each is running or failed, offer their tools
    to the first request, run `work`, and stop them whatever happens (also on SIGTERM and
    Ctrl+C, which cancel this task)."""
    if not servers.servers:
        return await work
    servers.on_change(lambda server: say_change(server, err))
    try:
        await servers.start()
        await servers.settled()
        agent.registry.sync()  # before the request, so the first model call has them
        return await work
    finally:
        work.close()  # never started (a failure above): no "never awaited" warning
        await servers.stop()
