"""Every MCP server of one pleat run: started together in the background, their tools offered to
the registry (a tools.registry.ToolSource), stopped with pleat.

The tool list the model sees changes only at a user turn's start (tools.registry.sync): tools of
servers running by then join, sorted by name after pleat's own tools, and stay for the rest of
the run (a server that dies keeps its tools listed; calling one says why it cannot run). So a
server that finishes starting late, or says its tool list changed, changes the list once, at the
next request, never mid-turn.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from agent.mcp.server import McpServer
from agent.mcp.settings import ServerSettings
from agent.mcp.tool import McpTool

# MCP tools offered at most, all servers together: OpenAI refuses a request with more than 128
# tools, and pleat's own take a dozen or so; 100 leaves them room. Past it, tools are noted in
# /mcp as not offered (a server with that many tools would also fill the window with schemas).
MAX_MCP_TOOLS = 100

Listener = Callable[[McpServer], None]

log = logging.getLogger(__name__)


class McpServers:
    """The servers of a run, in name order, and the tools offered of them so far."""

    def __init__(self, workspace: Path, settings: Iterable[ServerSettings] = ()) -> None:
        self.workspace = workspace
        self.servers: list[McpServer] = []
        self.disabled: list[str] = []  # names of servers configured with enabled = false
        self.skipped: list[str] = []  # one line each: a server or a file that was not used
        self._taken: set[str] = set()  # every tool name given, so no two servers share one
        self._offered: dict[str, McpTool] = {}
        self._listeners: list[Listener] = []
        self.add(settings)

    def __bool__(self) -> bool:
        return bool(self.servers or self.disabled or self.skipped)

    def add(self, settings: Iterable[ServerSettings]) -> list[McpServer]:
        """Take more servers (a .mcp.json once approved); a name already used is skipped with
        a note. Returns the servers added (started by the next start())."""
        added: list[McpServer] = []
        names = {server.name for server in self.servers} | set(self.disabled)
        for item in settings:
            if item.name in names:
                self.skipped.append(
                    f"{item.source}: the MCP server {item.name} is not used: a server of that "
                    "name is already configured"
                )
                continue
            names.add(item.name)
            if not item.enabled:
                self.disabled.append(item.name)
                continue
            server = McpServer(item, self.workspace, self._taken, self._changed)
            added.append(server)
        self.servers = sorted([*self.servers, *added], key=lambda s: s.name)
        return added

    def on_change(self, listener: Listener) -> None:
        """Call `listener` with a server whenever its state changes."""
        self._listeners.append(listener)

    def _changed(self, server: McpServer) -> None:
        for listener in self._listeners:
            try:
                listener(server)
            except Exception:  # a front end's bug must not stop the server's task
                log.debug("MCP state listener failed", exc_info=True)

    async def start(self) -> None:
        """Start every server not started yet, in parallel, in the background (the SDK is
        imported in a thread first: it takes a few hundred milliseconds)."""
        waiting = [server for server in self.servers if not server.started]
        if not waiting:
            return
        await asyncio.to_thread(importlib.import_module, "mcp")
        for server in waiting:
            server.start()

    async def settled(self) -> None:
        """Return once no server is starting (each within its start-up time limit)."""
        await asyncio.gather(*(server.settled() for server in self.servers))

    async def stop(self) -> None:
        """Stop every server and wait for them (pleat is quitting)."""
        await asyncio.gather(*(server.stop() for server in self.servers))

    def available_tools(self) -> Sequence[McpTool]:
        """The tools offered so far, sorted by name: every one offered before, and those of
        servers running now, up to MAX_MCP_TOOLS (tools.registry.ToolSource)."""
        for server in self.servers:
            if server.state != "running":
                continue
            for tool in server.tools:
                if tool.name in self._offered:
                    continue
                if len(self._offered) >= MAX_MCP_TOOLS:
                    note = (
                        f"tool {tool.remote!r} is not offered: at most {MAX_MCP_TOOLS} MCP "
                        "tools are (a request takes 128 tools at most)"
                    )
                    if note not in server.notes:
                        server.notes.append(note)
                    continue
                self._offered[tool.name] = tool
        return sorted(self._offered.values(), key=lambda tool: tool.name)

    def offered(self, tool: McpTool) -> bool:
        """Whether the model has been given this tool."""
        return self._offered.get(tool.name) is tool
