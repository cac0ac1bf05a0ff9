"""A real streamable HTTP MCP server (the `mcp` package) on a loopback port given as its argument.

Its tool `whoami` answers with the X-Team header of the request, so the tests see that the
headers of a [mcp_servers.NAME] table reach the server.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("web")


@server.tool()
def whoami(ctx: Context) -> str:
    """Which team is asking (the X-Team header)."""
    headers = ctx.headers or {}
    return f"team: {headers.get('x-team', 'none')}"


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
