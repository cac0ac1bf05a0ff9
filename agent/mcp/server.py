"""One MCP server's life: started in the background, its tools listed, called, and stopped.

Each server runs in its own task, which holds the connection (the SDK's transports and
ClientSession are context managers, entered and left in one task) until pleat stops it or the
server goes away. A server that cannot start, or that dies, ends "failed" with a one-line error;
calls to its tools then return that error as their result. Nothing it does reaches the terminal:
its stderr is captured (agent/mcp/stderr_tail.py) and the SDK's own log lines are dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import logging
import os
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent.mcp.confined import failed_start, with_sandbox_note
from agent.mcp.listing import screen
from agent.mcp.settings import ServerSettings, SettingsError
from agent.mcp.stderr_tail import StderrTail
from agent.mcp.surrogates import readable
from agent.mcp.tool import McpTool, adapt
from agent.mcp.transport import confining, open_transport
from tools.base import ToolError
from tools.sandbox.policy import Sandbox

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
    from mcp import ClientSession
    from mcp.shared.message import SessionMessage
    from mcp_types import CallToolResult
    from mcp_types import Tool as ListedTool

ServerState = Literal["starting", "running", "failed", "stopped"]

# Seconds a stopping server is waited for: the SDK closes its stdin, waits 2 s for it to exit,
# then sends SIGTERM to its process group, and SIGKILL 2 s later (6.5 s at worst with its
# flush and reap); 10 s covers that, and a server still not gone is left to the kill.
STOP_SECONDS = 10.0
# Seconds a stopping HTTP server is waited for before its connection is dropped: there is no
# process of pleat's to end, only the session's DELETE to send, which a live server answers in
# milliseconds; a hung one would hold the quit for the SDK's HTTP timeouts (30 s to connect,
# 300 s to read). 2 s is a slow network's round trips many times over, and short enough that
# quitting never seems to hang; a server dropped that way ends the session on its own timeout.
HTTP_STOP_SECONDS = 2.0
# Seconds to wait, after a server process ended, for the rest of its stderr: its last words are
# what explains a failure; a descendant still holding the pipe open must not hold the report.
STDERR_DRAIN_SECONDS = 0.5
# Pages of tools/list read at most: a server paging forever must not hang its start.
MAX_TOOL_PAGES = 20
# Loggers of the MCP SDK ("client" is its session's): their warnings would reach stderr through
# logging's last-resort handler and garble the TUI; pleat reports failures itself.
SDK_LOGGERS = ("mcp", "client")
for _name in SDK_LOGGERS:
    logging.getLogger(_name).addHandler(logging.NullHandler())
    logging.getLogger(_name).propagate = False


class ServerGone(Exception):
    """The server closed the connection on its own (a process that exited, a dropped stream)."""


def one_line(error: BaseException) -> str:
    """A failure in one line: the first leaf of an exception group, its message."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, TimeoutError):
        return "timed out"
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename}" if error.filename else error.strerror
    text = " ".join(str(error).split())
    return text or type(error).__name__


def _gone(error: BaseException) -> bool:
    """Whether an error says the server went away (rather than answered with an error)."""
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED

    closed = isinstance(error, MCPError) and error.code == CONNECTION_CLOSED
    return closed or isinstance(error, ServerGone | ConnectionError | EOFError)


def client_version() -> str:
    """pleat's version, as it introduces itself to servers."""
    try:
        return importlib.metadata.version("pleat-agent")
    except importlib.metadata.PackageNotFoundError:
        return "0"


class McpServer:
    """One configured server: its state, its tools once listed, the last lines of its stderr."""

    def __init__(
        self,
        settings: ServerSettings,
        workspace: Path,
        taken: set[str],
        on_change: Callable[[McpServer], None],
        sandbox: Sandbox | None = None,
    ) -> None:
        self.settings = settings
        self.name = settings.name
        self.state: ServerState = "starting"
        self.error: str | None = None  # why it failed, one line
        self.version = ""  # what the server says it is, e.g. "docs 1.2.0"
        self.tools: list[McpTool] = []
        self.notes: list[str] = []  # tools not offered, and why
        self._notes_said = 0  # how many of them a front end has said (new_notes)
        self.stderr = StderrTail()
        self._workspace = workspace
        self._sandbox = sandbox  # where a stdio server's program runs (agent/mcp/transport.py)
        self._taken = taken  # the names of every MCP tool given so far (shared)
        self._on_change = on_change
        self._session: ClientSession | None = None
        self._client: ClientSession | None = None  # the connection's session, from the start
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()  # a stop was asked, or the connection ended
        self._settled = asyncio.Event()  # no longer starting
        self._task: asyncio.Task[None] | None = None
        self._group: Any = None  # the connection's anyio task group, once connected

    def new_notes(self) -> list[str]:
        """The notes not said yet (a front end says each once, whenever it came)."""
        fresh = self.notes[self._notes_said :]
        self._notes_said = len(self.notes)
        return fresh

    @property
    def confined(self) -> Sandbox | None:
        """The sandbox its program runs in (its settings opted in), or None: it runs as you."""
        return confining(self.settings, self._sandbox)

    @property
    def started(self) -> bool:
        return self._task is not None

    def start(self) -> None:
        """Start connecting in a background task (on the running loop); once only."""
        if self._task is None:
            self._task = asyncio.create_task(self._serve(), name=f"MCP server {self.name}")

    async def settled(self) -> None:
        """Return once the server is no longer starting: running, failed or stopped (its
        start-up time limit bounds the wait)."""
        if self._task is not None:
            await self._settled.wait()

    async def stop(self) -> None:
        """Close the connection (a stdio server's process is ended, its group killed if it
        lingers; an HTTP server's session is ended) and wait for it: at most STOP_SECONDS for
        a stdio server, HTTP_STOP_SECONDS for an HTTP one, then the task is cancelled (the
        connection dropped) and waited for as long again."""
        self._stop.set()
        self._wake.set()
        task = self._task
        if task is None or task.done():
            if self.state in ("starting", "running"):
                self._set("stopped")
            return
        bound = STOP_SECONDS if self.settings.transport == "stdio" else HTTP_STOP_SECONDS
        done, _ = await asyncio.wait({task}, timeout=bound)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait({task}, timeout=bound)

    async def call(self, remote: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call one of its tools; every failure (not running, an error answer, no answer within
        the time limit, a broken connection) is a ToolError with one line."""
        session = self._session
        if self.state != "running" or session is None:
            what = {"failed": "failed", "stopped": "stopped", "starting": "not started yet"}
            why = f": {self.error}" if self.error else ""
            raise ToolError(
                f"the MCP server {self.name} {what[self.state]}{why}; its tools cannot be called "
                "(/mcp shows its state)"
            )
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        timeout = self.settings.tool_timeout
        try:
            result = await session.call_tool(remote, arguments, read_timeout_seconds=timeout)
            return with_sandbox_note(self.name, result, self.confined)
        except MCPError as error:
            if error.code == REQUEST_TIMEOUT:
                raise ToolError(
                    f"the MCP server {self.name} did not answer within {timeout:g} s (its "
                    "tool_timeout_sec); the call was cancelled"
                ) from None
            if error.code == CONNECTION_CLOSED:
                raise ToolError(
                    f"the MCP server {self.name} went away during the call (its process "
                    "exited, or the connection dropped); /mcp shows its state"
                ) from None
            raise ToolError(
                f"the MCP server {self.name} refused the call: {one_line(error)}"
            ) from None
        except Exception as error:  # a broken stream, a malformed result: the call's result
            raise ToolError(f"the MCP server {self.name} failed: {one_line(error)}") from None

    # -- the connection's task ----------------------------------------------------------------

    def _set(self, state: ServerState, error: str | None = None) -> None:
        self.state, self.error = state, error
        if state != "running":
            self._session = None
        self._settled.set()
        self._on_change(self)

    async def _serve(self) -> None:
        """Connect, list the tools, then hold the connection until asked to stop or it ends."""
        try:
            await self._connect()
        except asyncio.CancelledError:
            self._set("stopped")
            raise
        except SettingsError as error:
            self._set("failed", str(error))
        except Exception as error:  # anything the server or the transport did: said, not raised
            await self._fail(error)
        else:
            self._set("stopped")
        finally:
            self.stderr.close()

    async def _fail(self, error: BaseException) -> None:
        """End as failed, with what went wrong and the server's last stderr line."""
        starting = self.state == "starting"
        leaf = error
        while isinstance(leaf, BaseExceptionGroup) and leaf.exceptions:
            leaf = leaf.exceptions[0]
        if isinstance(leaf, TimeoutError) and starting:
            what = (
                f"did not start within {self.settings.startup_timeout:g} s "
                "(its startup_timeout_sec)"
            )
        elif _gone(leaf):
            what = "exited during start-up" if starting else "exited"
        else:
            what = one_line(error)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stderr.ended.wait(), STDERR_DRAIN_SECONDS)
        last = self.stderr.last()
        what = failed_start(what, self.stderr.lines(), self.confined)
        self._set("failed", f"{what} (stderr: {last})" if last else what)

    async def _connect(self) -> None:
        import anyio
        from mcp import ClientSession
        from mcp.shared.message import SessionMessage
        from mcp_types import Implementation

        settings = self.settings.expanded(os.environ)
        async with AsyncExitStack() as stack:
            read, write = await open_transport(
                stack, settings, self._workspace, self.stderr, self._sandbox
            )
            # The server's messages pass through a relay, which notices when they end (the
            # process exited, the stream dropped) while nothing is being asked.
            relay_in, relay_out = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            relays = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(relays.cancel_scope.cancel)
            relays.start_soon(self._relay, read, relay_in)
            self._group = relays
            session = await stack.enter_async_context(
                ClientSession(
                    relay_out,
                    write,
                    message_handler=self._on_message,
                    client_info=Implementation(name="pleat", version=client_version()),
                )
            )
            self._client = session
            # The handshake ends early when pleat stops or the server goes (the watcher): a
            # quit never waits for a server's start-up limit.
            handshake = anyio.CancelScope()
            relays.start_soon(self._watch, handshake)
            with handshake, anyio.fail_after(settings.startup_timeout):
                started = await session.initialize()
                listed = await self._list_tools(session) if started.capabilities.tools else []
                info = started.server_info
                self.version = f"{info.name} {info.version}".strip()
                self._adopt(session, listed)
            await self._wake.wait()
            if not self._stop.is_set():
                raise ServerGone("the server closed the connection")

    async def _watch(self, handshake: Any) -> None:
        """Cancel the handshake (an anyio CancelScope) once a stop is asked or the connection
        ends (a no-op once it is over)."""
        await self._wake.wait()
        handshake.cancel()

    async def _relay(
        self,
        source: MemoryObjectReceiveStream[SessionMessage | Exception],
        sink: MemoryObjectSendStream[SessionMessage | Exception],
    ) -> None:
        import anyio

        try:
            async with sink:
                async for item in source:
                    await sink.send(self._screened(item))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            pass
        finally:
            self._wake.set()

    def _screened(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        """A tool listing with its malformed entries dropped (a note each: agent/mcp/listing.py),
        a message refused for lone surrogates read anyway (agent/mcp/surrogates.py), any other
        message as it came. A listing is the only result holding a list of tools."""
        if isinstance(item, Exception):
            item = readable(item)
        result = getattr(getattr(item, "message", None), "result", None)
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return item
        client = self._client
        result["tools"], notes = screen(
            result["tools"], client.protocol_version if client is not None else None
        )
        self.notes += [note for note in notes if note not in self.notes]
        return item

    async def _list_tools(self, session: ClientSession) -> list[ListedTool]:
        from mcp_types import PaginatedRequestParams

        listed: list[ListedTool] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            page = PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=page)
            listed += result.tools
            cursor = result.next_cursor
            if not cursor:
                break
        return listed

    def _adopt(self, session: ClientSession, listed: list[ListedTool]) -> None:
        """Running: its tools made pleat tools (sorted by name), the others noted."""
        self._session = session
        self._take(listed)
        self._set("running")

    def _take(self, listed: list[ListedTool]) -> None:
        """Make pleat tools of the listed ones not taken yet (sorted by name); note the others.
        A tool taken keeps its schema for the run, so the tool list stays the same."""
        known = {tool.remote for tool in self.tools}
        for item in sorted(listed, key=lambda t: t.name):
            if item.name in known:
                continue
            known.add(item.name)
            made = adapt(self.name, item, self._taken, self.call)
            if isinstance(made, str):
                if made not in self.notes:
                    self.notes.append(made)
                continue
            self._taken.add(made.name)
            self.tools.append(made)

    async def _on_message(self, message: Any) -> None:
        """The server said its tool list changed: read it again, in the background (this runs
        inside the SDK's read loop). New tools join at the next request; a tool it no longer
        lists stays offered, and a call to it gets the server's answer."""
        from mcp_types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification) and self._group is not None:
            self._group.start_soon(self._relist)

    async def _relist(self) -> None:
        session = self._session
        if session is None or self.state != "running":
            return  # the first listing, still to come, will have them
        try:
            listed = await self._list_tools(session)
        except Exception:  # the server is failing: its task says so
            return
        before = len(self.tools), len(self.notes)
        self._take(listed)
        if (len(self.tools), len(self.notes)) != before:
            self._on_change(self)
