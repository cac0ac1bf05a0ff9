"""Every MCP server of one pleat run: started together in the background, their tools offered to
the registry (a tools.registry.ToolSource), stopped with pleat.

The tool list the model sees changes only at a user turn's start (tools.registry.sync): tools of
servers running by then join, sorted by name after pleat's own tools, and stay for the rest of
the run (a server that dies keeps its tools listed; calling one says why it cannot run). So a
server that finishes starting late, or says its tool list changed, changes the list once, at the
next request, never mid-turn. Which tools are offered at all (a count, a share of the window) is
agent/mcp/admission.py's to decide; a tool left out is said once, in a note of its server.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from agent.mcp.admission import Admission, Reason, left_out_note
from agent.mcp.server import McpServer
from agent.mcp.settings import ServerSettings
from agent.mcp.tool import McpTool
from agent.mcp.tool_search import MAX_FOUND, Found, ranked
from tools.sandbox.policy import Sandbox

Listener = Callable[[McpServer], None]
# The reasons a tool is left out, in the order their notes are given.
REASONS: tuple[Reason, ...] = ("count", "budget")

log = logging.getLogger(__name__)


class McpServers:
    """The servers of a run, in name order, and the tools offered of them so far."""

    def __init__(
        self,
        workspace: Path,
        settings: Iterable[ServerSettings] = (),
        sandbox: Sandbox | None = None,
    ) -> None:
        self.workspace = workspace
        self.sandbox = sandbox  # the run's: stdio servers run in it (agent/mcp/transport.py)
        self.servers: list[McpServer] = []
        self.disabled: list[str] = []  # names of servers configured with enabled = false
        self.skipped: list[str] = []  # one line each: a server or a file that was not used
        self._taken: set[str] = set()  # every tool name given, so no two servers share one
        self.admission = Admission()
        self._given: set[str] = set()  # the tools handed to the registry (the model's)
        # Whether the model gets tool_search for the tools left out: a run with a next turn to
        # join at (a headless run has one turn, so there what a search found could never join).
        self.searchable = True
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
            server = McpServer(item, self.workspace, self._taken, self._changed, self.sandbox)
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

    def limit_schemas(self, usable: Callable[[], int], count: Callable[[str], int]) -> None:
        """The agent's window (usable tokens, now) and token count: the MCP tools' schemas
        together take at most a share of it (agent/mcp/admission.py)."""
        self.admission.limit(usable, count)

    def _candidates(self) -> list[McpTool]:
        """The tools of the running servers, servers by name, in each one's (sorted) order."""
        return [tool for s in self.servers if s.state == "running" for tool in s.tools]

    def undecided(self) -> bool:
        """Whether a running server has a tool not yet offered or left out."""
        return any(not self.admission.decided(tool) for tool in self._candidates())

    def prepare(self) -> None:
        """Blocking: count what admit() needs (a UI calls it in a thread first)."""
        self.admission.prepare(self._candidates())

    def admit(self) -> None:
        """Decide on the tools of running servers not decided yet; each server with tools left
        out gets a note saying which (and its listeners hear of it)."""
        dropped = self.admission.decide(self._candidates())
        for server in self.servers:
            mine = [(tool, why) for tool, why in dropped if tool.server == server.name]
            if not mine:
                continue
            for reason in REASONS:
                tools = [tool for tool, why in mine if why == reason]
                if tools:
                    cap = self.admission.cap()
                    server.notes.append(left_out_note(tools, reason, cap, self.searchable))
            self._changed(server)

    def available_tools(self) -> Sequence[McpTool]:
        """The tools offered so far, sorted by name: every one offered before, and those of
        servers running now that admission takes (tools.registry.ToolSource)."""
        self.admit()
        self._given.update(self.admission.offered)
        return sorted(self.admission.offered.values(), key=lambda tool: tool.name)

    def offered(self, tool: McpTool) -> bool:
        """Whether the model has been given this tool."""
        return tool.name in self._given and self.admission.offered.get(tool.name) is tool

    def left_out(self, tool: McpTool) -> Reason | None:
        """Why this tool is not offered, if it is not."""
        return self.admission.left_out.get(tool.name)

    def missing(self) -> bool:
        """Whether tool_search is to be offered: the run has next turns and a running server
        has a tool left out."""
        return self.searchable and any(self.left_out(tool) for tool in self._candidates())

    def find(self, words: Sequence[str]) -> Found:
        """tool_search's search (agent/mcp/tool_search.py): the best MAX_FOUND left-out tools
        matching `words` are brought in, to join at the next sync; each server concerned gets a
        note saying which join and which gave way to them."""
        matches = ranked(self._candidates(), words)
        waiting = [tool for tool in matches if self.left_out(tool)]
        brought = self.admission.bring_in(waiting[:MAX_FOUND])
        pending = [
            t for t in matches if t.name in self.admission.offered and t not in brought.joined
        ]
        found = Found(
            joined=[*brought.joined, *(t for t in pending if not self.offered(t))],
            offered=[t for t in pending if self.offered(t)][:MAX_FOUND],
            refused=brought.refused,
            gave_way=brought.gave_way,
            more=len(waiting[MAX_FOUND:]),
        )
        for server in self.servers:
            joined = [t.remote for t in brought.joined if t.server == server.name]
            gone = [t.remote for t in brought.gave_way if t.server == server.name]
            if joined:
                server.notes.append(
                    f"tool_search found {', '.join(joined)}: they join at your next request"
                )
            if gone:
                server.notes.append(
                    f"{', '.join(gone)} gave way to tools tool_search found (never called; a "
                    "search finds them again)"
                )
            if joined or gone:
                self._changed(server)
        return found
