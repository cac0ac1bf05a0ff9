"""The run's MCP servers through a session's life, for every front end: config.toml's started,
then ~/.claude.json's, then the project's .mcp.json once approved through the asking protocol;
a failure or a note said as a Notice; their tools decided as they come up."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from agent.events import Notice

if TYPE_CHECKING:
    from agent.mcp.manager import McpServers
    from agent.mcp.server import McpServer
    from agent.mcp.settings import ServerSettings
    from agent.session.asking import Asking
    from agent.session.runtime import SessionController

# How a front end hears of a server's failure or note while the run goes on.
Say = Callable[[Notice], None]
# How it runs work nothing waits for (the TUI: after the next frame).
Spawn = Callable[[Coroutine[Any, Any, None]], None]


async def start_servers(
    controller: SessionController,
    asking: Asking,
    say: Say,
    spawn: Spawn,
    extra: tuple[ServerSettings, ...] = (),
) -> None:
    """Start config.toml's servers (and `extra`: an editor's own), then ~/.claude.json's, then
    ask about the project's .mcp.json (when it has servers and this content was never approved)
    and start those allowed (agent/mcp/sources.py: which one a name shared by several means).
    Once per run; `spawn` runs a background task of the front end's (deciding on tools)."""
    from agent.mcp.project_file import approve, is_approved
    from agent.mcp.sources import gather_servers
    from agent.session.project_questions import mcp_question

    servers = controller.mcp
    if controller.mcp_opened:
        return
    controller.mcp_opened = True
    servers.on_change(lambda server: _changed(servers, server, say, spawn))
    servers.add(extra)
    await servers.start()
    configured = controller.config.mcp_servers if controller.config else ()
    run = await asyncio.to_thread(gather_servers, configured, controller.workspace)
    for problem in run.problems:
        servers.skipped.append(problem)
        say(Notice(problem, "error"))
    servers.skipped.extend(run.hidden)
    servers.add(run.claude)
    await servers.start()
    project = run.project
    if project is None or not project.servers:
        return
    approved = await asyncio.to_thread(is_approved, controller.workspace, project)
    if not approved:
        approved = await asking.approve_project(mcp_question(project))
        if not approved:
            names = ", ".join(server.name for server in project.servers)
            line = f".mcp.json's MCP servers ({names}) were not started; asked again next time"
            servers.skipped.append(line)
            say(Notice(line))
        else:
            try:
                await asyncio.to_thread(approve, controller.workspace, project)
            except OSError as error:  # used now all the same; asked again next time
                say(Notice(f"cannot remember the approval: {error}", "error"))
    added, hidden = run.project_servers(approved)
    servers.skipped.extend(hidden)
    servers.add(added)
    await servers.start()


def _changed(
    servers: McpServers,
    server: McpServer,
    say: Say,
    spawn: Spawn,
) -> None:
    """A server failed (at start or later): its error; a server that runs with tools it cannot
    offer: each new note (said once). A server running with tools not decided on yet: decide
    now, so what is left out is said at start, not at the first request."""
    if server.state == "failed":
        say(Notice(f"MCP server {server.name} failed: {server.error}", "error"))
    elif server.state == "running":
        for note in server.new_notes():
            say(Notice(f"MCP server {server.name}: {note}"))
        if servers.undecided():
            spawn(_admit(servers))


async def _admit(servers: McpServers) -> None:
    """Decide which tools are offered (agent/mcp/admission.py), the counting in a thread: the
    window may import litellm, and big schemas take a while to count."""
    await asyncio.to_thread(servers.prepare)
    servers.admit()  # its notes come back through _changed
