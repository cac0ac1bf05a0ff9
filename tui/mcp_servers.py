"""MCP in the TUI: servers started in the background once the session is open (never before the
first frame), the project's .mcp.json asked about first, failures as notices, /mcp, the stop."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui.host import Host

if TYPE_CHECKING:
    from agent.mcp.manager import McpServers
    from agent.mcp.server import McpServer


def _servers(host: Host) -> McpServers | None:
    return host.controller.mcp if host.controller is not None else None


async def start(host: Host) -> None:
    """Start config.toml's servers, then ~/.claude.json's, then ask about the project's
    .mcp.json (when it has servers and this content was never approved) and start those the
    user allows (agent/mcp/sources.py: which one a name shared by several means). Once per run
    (a later call, after /model opened the first session, does nothing)."""
    from agent.mcp.project_file import approve, is_approved
    from agent.mcp.sources import gather_servers
    from agent.session.project_questions import mcp_question

    servers = _servers(host)
    if servers is None or host.controller is None or host.controller.mcp_opened:
        return
    host.controller.mcp_opened = True
    servers.on_change(lambda server: _changed(host, server))
    await servers.start()
    configured = host.controller.config.mcp_servers if host.controller.config else ()
    run = await asyncio.to_thread(gather_servers, configured, host.workspace)
    for problem in run.problems:
        servers.skipped.append(problem)
        await host.conversation.add_notice(problem, "error")
    servers.skipped.extend(run.hidden)
    servers.add(run.claude)
    await servers.start()
    project = run.project
    if project is None or not project.servers:
        return
    approved = await asyncio.to_thread(is_approved, host.workspace, project)
    if not approved:
        approved = await host.approvals.asking.approve_project(mcp_question(project))
        if not approved:
            names = ", ".join(server.name for server in project.servers)
            line = f".mcp.json's MCP servers ({names}) were not started; asked again next time"
            servers.skipped.append(line)
            await host.conversation.add_notice(line)
        else:
            try:
                await asyncio.to_thread(approve, host.workspace, project)
            except OSError as error:  # used now all the same; asked again next time
                await host.conversation.add_notice(
                    f"cannot remember the approval: {error}", "error"
                )
    added, hidden = run.project_servers(approved)
    servers.skipped.extend(hidden)
    servers.add(added)
    await servers.start()


def _changed(host: Host, server: McpServer) -> None:
    """A server failed (at start or later): one red notice, its error with it; a server that
    runs with tools it cannot offer: a note for each new note (said once). A server running
    with tools not decided on yet: decide now, so what is left out is said at start, not at the
    first request."""
    lines: list[tuple[str, str]] = []
    if server.state == "failed":
        lines.append((f"MCP server {server.name} failed: {server.error}", "error"))
    elif server.state == "running":
        lines += [(f"MCP server {server.name}: {note}", "note") for note in server.new_notes()]
        servers = _servers(host)
        if servers is not None and servers.undecided():
            host.start_background(_admit(servers))
    if lines:
        host.start_background(_notices(host, lines))


async def _admit(servers: McpServers) -> None:
    """Decide which tools are offered (agent/mcp/admission.py), the counting in a thread: the
    window may import litellm, and big schemas take a while to count."""
    await asyncio.to_thread(servers.prepare)
    servers.admit()  # its notes come back through _changed


async def _notices(host: Host, lines: list[tuple[str, str]]) -> None:
    for text, kind in lines:
        await host.conversation.add_notice(text, "error" if kind == "error" else "note")


async def show(host: Host, _: str) -> None:
    """/mcp: every server, its state (starting, running, failed with the error, stopped), its
    tools and the last lines of its stderr."""
    from agent.mcp.report import report

    await host.conversation.add_notice(report(_servers(host)))


async def stop(host: Host) -> None:
    """Stop every server (pleat is quitting): their processes end before pleat does."""
    servers = _servers(host)
    if servers is not None:
        await servers.stop()
