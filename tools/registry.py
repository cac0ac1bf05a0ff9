"""The tool registry: schemas for the model, and a dispatch that turns every failure into text."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from tools.archive_reader import ArchiveReaderTool
from tools.arguments import validate_arguments
from tools.background_commands import BackgroundCommands
from tools.background_tools import background_tools
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.command_limits import DEFAULT_TIMEOUT_SECONDS
from tools.edit_file import EditFileTool
from tools.list_dir import ListDirTool
from tools.output_guard import keep_within_budget
from tools.read_file import ReadFileTool
from tools.search import GlobTool, GrepTool
from tools.shell import RunCommandTool
from tools.todo_write import TodoWriteTool
from tools.web_fetch import WebFetchTool
from tools.write_file import WriteFileTool

if TYPE_CHECKING:
    from sessions.archive import ChunkArchive
    from sessions.messages import ToolCall

__all__ = ["ToolRegistry", "ToolSource", "default_registry", "validate_arguments"]

log = logging.getLogger(__name__)

# Results up to this many characters are checked against the budget on the event loop: they fit
# any budget (at least MIN_OUTPUT_TOKENS tokens, and no text runs 3 tokens a character), so the
# check is a count of a few hundred characters; longer ones are counted, and cut and kept when
# too long, in a worker thread, so the UI never waits on a tokenizer or a disk write.
INLINE_CHECK_CHARS = 64


class ToolSource(Protocol):
    """Tools that become available while pleat runs (MCP servers that finish starting)."""

    def available_tools(self) -> Sequence[Tool]:
        """Every tool the source offers now (one it no longer offers leaves at the next sync:
        an MCP tool past its share of a smaller window)."""
        ...


class ToolRegistry:
    """Tools by name: those registered, in that order, then those joined from sources, sorted by
    name (so the list the model sees is the same whichever source was ready first)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._own: dict[str, Tool] = {}
        self._joined: dict[str, Tool] = {}
        self._tools: dict[str, Tool] = {}  # both, in the order the model sees them
        self.sources: list[ToolSource] = []
        self._listeners: list[Callable[[], None]] = []
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add a tool; two tools may not share a name."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._own[tool.name] = tool
        self._tools = self._own | self._joined

    def add_source(self, source: ToolSource) -> None:
        """Tools of `source` join at each sync()."""
        self.sources.append(source)

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` after a sync() that changed the tools (their schemas' tokens)."""
        self._listeners.append(listener)

    def sync(self) -> bool:
        """Take the tools the sources offer now, sorted by name after the registered ones (and
        drop those they no longer offer); True when the list changed. The agent calls it as a
        user turn starts, never during one: the tool list changes between requests only."""
        offered = {
            tool.name: tool
            for source in self.sources
            for tool in source.available_tools()
            if tool.name not in self._own
        }
        if offered == self._joined:
            return False
        self._joined = dict(sorted(offered.items()))
        self._tools = self._own | self._joined
        for listener in self._listeners:
            listener()
        return True

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def describe(self, call: ToolCall) -> str:
        """A call's one-line title (its tool's describe_call; `name(?)` for an unknown tool)."""
        tool = self._tools.get(call.name)
        return tool.describe_call(call.parsed_arguments()) if tool else f"{call.name}(?)"

    def names(self) -> list[str]:
        """Every tool name, in the order the model sees them."""
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """The OpenAI function-tool schemas of every tool, for the model call."""
        return [tool.schema() for tool in self._tools.values()]

    async def dispatch(
        self, name: str, raw_arguments: str | Mapping[str, Any], ctx: ToolContext
    ) -> ToolOutput:
        """Validate and run one call. Never raises, except asyncio.CancelledError.

        Every problem (unknown tool, bad arguments, a ToolError, a bug in a tool) comes back
        as an error output the model can read and act on; every output, error or not, is cut to
        the call's budget (tools/output_guard.py).
        """
        output = await self._run(name, raw_arguments, ctx)
        if len(output.text) <= INLINE_CHECK_CHARS and output.spooled is None:
            return keep_within_budget(output, ctx)
        return await asyncio.to_thread(keep_within_budget, output, ctx)

    async def _run(
        self, name: str, raw_arguments: str | Mapping[str, Any], ctx: ToolContext
    ) -> ToolOutput:
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self._tools) or "none"
            return ToolOutput(f"unknown tool {name!r}; available tools: {available}", is_error=True)
        try:
            args = validate_arguments(tool, raw_arguments)
            output = await tool.run(args, ctx)
        except asyncio.CancelledError:
            raise
        except ToolError as exc:
            return ToolOutput(str(exc) or f"{name} failed", is_error=True)
        except Exception as exc:
            # Debug level: a bare WARNING would reach stderr through logging's last-resort
            # handler and garble the TUI; the model gets the error either way.
            log.debug("tool %s crashed", name, exc_info=True)
            text = f"internal error in {name}: {type(exc).__name__}: {exc}"
            return ToolOutput(text, is_error=True)
        if not isinstance(output, ToolOutput):
            kind = type(output).__name__
            return ToolOutput(f"internal error in {name}: returned {kind}", is_error=True)
        return output


def default_registry(
    command_timeout: float = DEFAULT_TIMEOUT_SECONDS,
    archive: ChunkArchive | None = None,
    background: BackgroundCommands | None = None,
) -> ToolRegistry:
    """A registry holding every workspace tool: reading and searching first, then changes and
    commands (with those reading and stopping background ones: `background`'s, or new ones),
    then the task list and web pages; and, given the session's chunk archive, read_archive
    last."""
    background = background if background is not None else BackgroundCommands()
    tools: list[Tool] = [
        ReadFileTool(),
        ListDirTool(),
        GlobTool(),
        GrepTool(),
        EditFileTool(),
        WriteFileTool(),
        RunCommandTool(default_timeout=command_timeout, background=background),
        *background_tools(background),
        TodoWriteTool(),
        WebFetchTool(),
    ]
    if archive is not None:
        tools.append(ArchiveReaderTool(archive))
    return ToolRegistry(tools)
