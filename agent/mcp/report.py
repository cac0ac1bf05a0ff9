"""What /mcp shows (in the TUI and on stdout headless): each server, its state, its tools."""

from __future__ import annotations

import os

from agent.mcp.disclosure import withheld_line
from agent.mcp.manager import McpServers
from agent.mcp.server import McpServer

# Lines of a server's stderr shown: the end of a failure's traceback, a few lines of a running
# server's log (all 20 kept lines would bury the list).
FAILED_STDERR_LINES = 10
RUNNING_STDERR_LINES = 3
# Said when nothing is configured.
NONE_CONFIGURED = (
    "No MCP servers are configured: add an [mcp_servers.NAME] table to config.toml (a command "
    "to run, or a url), a .mcp.json to the project, or a server with `claude mcp add`."
)


def server_line(server: McpServer) -> str:
    """`name · state · what it is`: one line, as a notice says it too."""
    state = f"failed: {server.error}" if server.state == "failed" and server.error else server.state
    what = f"{server.settings.transport}: {server.settings.target()}"
    parts = [server.name, state, *([server.version] if server.version else []), what]
    return " · ".join(parts)


def _server(servers: McpServers, server: McpServer) -> list[str]:
    where = "in the sandbox (sandbox = true)" if server.confined else "as you, outside the sandbox"
    if server.settings.transport == "http":
        where = "over HTTP (nothing runs here)"
    lines = [server_line(server), f"  from {server.settings.source}; runs {where}"]
    withheld = withheld_line(server.settings, os.environ)
    if withheld is not None:
        lines.append(f"  {withheld}")
    if server.tools:
        out = [tool for tool in server.tools if servers.left_out(tool)]
        waiting = [t for t in server.tools if not servers.offered(t) and not servers.left_out(t)]
        names = ", ".join(tool.name for tool in server.tools)
        lines.append(f"  tools ({len(server.tools)}): {names}")
        if out:
            lines.append(f"  not offered ({len(out)}): {', '.join(tool.name for tool in out)}")
        if waiting:
            lines.append(f"  {len(waiting)} of them join at your next request")
    elif server.state == "running":
        lines.append("  no tools")
    lines += [f"  {note}" for note in server.notes]
    shown = FAILED_STDERR_LINES if server.state == "failed" else RUNNING_STDERR_LINES
    stderr = server.stderr.lines()[-shown:]
    if stderr:
        lines.append("  stderr, last lines:")
        lines += [f"    {line}" for line in stderr]
    return lines


def report(servers: McpServers | None) -> str:
    """Every server with its state and tools, then those not used and why."""
    if not servers:
        return NONE_CONFIGURED
    lines = [f"MCP servers ({len(servers.servers)}):"] if servers.servers else []
    for server in servers.servers:
        lines += _server(servers, server)
    if servers.disabled:
        lines.append(f"disabled (enabled = false): {', '.join(servers.disabled)}")
    lines += servers.skipped
    return "\n".join(lines)
