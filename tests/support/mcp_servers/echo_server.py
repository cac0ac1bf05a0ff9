"""A real stdio MCP server, written with the `mcp` package, that the tests configure pleat to run.

Its tools: `echo` (text back), `big` (as many lines as asked), `boom` (the tool fails), `shot`
(a small PNG image), `nap` (sleeps, for time limits), `grow` (adds a tool and says the list
changed), `quit` (the process exits mid-call), and with the argument `--probe` also `probe`
(writes a file and connects: what the sandbox allows; off by default, so listings stay). At
start it writes its pid to $ECHO_PID_FILE when set (the tests check that no server outlives
pleat) and a line to stderr (which must never reach pleat's terminal). With $ECHO_LINGER set it
does not exit when its stdin closes, as some servers do not: only pleat's kill ends it. With
$ECHO_WAIT_FOR it answers only once that file exists (a server slow to start). With
$ECHO_ENV_FILE it writes the environment it was started with there, as JSON.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ImageContent

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository: tests.support

from tests.support.images import png

server = MCPServer("echo")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool()
def big(lines: int) -> str:
    """Return `lines` numbered lines of text."""
    return "\n".join(f"line {n:06d} of the big result" for n in range(1, lines + 1))


@server.tool()
def boom() -> str:
    """Always fails."""
    raise ToolError("the boom tool always fails")


@server.tool()
def shot() -> ImageContent:
    """A small PNG screenshot."""
    data = base64.b64encode(png(4, 3, seed=7)).decode("ascii")
    return ImageContent(type="image", data=data, mime_type="image/png")


@server.tool()
def nap(seconds: float) -> str:
    """Sleep, then answer (with $ECHO_PID_FILE set, `<that file>.nap` says it has begun)."""
    if pid_file := os.environ.get("ECHO_PID_FILE"):
        Path(f"{pid_file}.nap").write_text("napping")
    time.sleep(seconds)
    return "rested"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add a tool, `extra`, and tell the client that the tool list changed."""
    server.add_tool(extra, name="extra")
    await ctx.session.send_tool_list_changed()
    return "grown"


def extra(text: str) -> str:
    """A tool added while the server runs."""
    return f"extra: {text}"


def probe(path: str, port: int) -> str:
    """Try to write `path` and to connect to 127.0.0.1:`port`; say what happened (what the
    sandbox tests read)."""
    said = []
    try:
        Path(path).write_text("written by the MCP server")
        said.append("write: done")
    except OSError as error:
        said.append(f"write: {error.strerror}")
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        said.append("connect: done")
    except OSError as error:
        said.append(f"connect: {error.strerror or error}")
    return "; ".join(said)


@server.tool()
def quit() -> str:
    """The server process exits in the middle of the call."""
    os._exit(3)


if __name__ == "__main__":
    if "--probe" in sys.argv[1:]:
        server.tool()(probe)
    if pid_file := os.environ.get("ECHO_PID_FILE"):
        Path(pid_file).write_text(str(os.getpid()))
    if env_file := os.environ.get("ECHO_ENV_FILE"):
        Path(env_file).write_text(json.dumps(dict(os.environ)))
    if gate := os.environ.get("ECHO_WAIT_FOR"):  # a server slow to start: until the test says
        deadline = time.monotonic() + 60
        while not Path(gate).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    print("echo server: starting (this line goes to stderr)", file=sys.stderr, flush=True)
    server.run()
    if os.environ.get("ECHO_LINGER"):  # a server that outlives its stdin: only a kill ends it
        time.sleep(600)
