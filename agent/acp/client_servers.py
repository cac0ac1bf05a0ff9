"""The MCP servers an editor passes with session/new and session/load, as pleat's server
settings: stdio and HTTP, with their env and headers; they run as the user (the client's own
configuration), beside the user's servers."""

from __future__ import annotations

from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio

from agent.mcp.settings import ServerSettings

# Where these servers came from, as /mcp and every note about them say.
SOURCE = "the editor (ACP)"


def client_servers(servers: list[Any] | None) -> tuple[list[ServerSettings], list[str]]:
    """The settings of the servers pleat can run, and a line for each it cannot (SSE, ACP)."""
    settings: list[ServerSettings] = []
    skipped: list[str] = []
    for server in servers or ():
        if isinstance(server, McpServerStdio):
            settings.append(
                ServerSettings(
                    name=server.name,
                    source=SOURCE,
                    command=server.command,
                    args=tuple(server.args),
                    env=tuple((item.name, item.value) for item in server.env),
                )
            )
        elif isinstance(server, HttpMcpServer):
            settings.append(
                ServerSettings(
                    name=server.name,
                    source=SOURCE,
                    url=server.url,
                    headers=tuple((item.name, item.value) for item in server.headers),
                )
            )
        else:
            kind = getattr(server, "type", "unknown")
            skipped.append(
                f"{SOURCE}: the MCP server {server.name} is not used: pleat does not "
                f"speak its transport ({kind})"
            )
    return settings, skipped
