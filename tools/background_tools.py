"""The command_output and command_stop tools: reading and stopping background commands."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from tools.background_commands import BackgroundCommand, BackgroundCommands
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.shell import RunCommandTool

# The JSON schema both tools take: the id run_command gave.
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "bg-N, from run_command"},
    },
    "required": ["id"],
    "additionalProperties": False,
}


def _status(job: BackgroundCommand, left: int, ended: bool) -> str:
    """What follows the output: more to read, still running, or how it ended (`ended`: before
    the read, so the output read is all of it)."""
    lines = []
    if left:
        lines.append(f"[{left:,} more bytes of output not read yet: call command_output again]")
    if job.lingering:
        lines.append("[background processes kept the output open; they were killed]")
    if job.spool.dropped:
        lines.append(f"[{job.spool.dropped:,} bytes past the output file's cap were not kept]")
    lines.append(f"{job.id}: {job.state()}" if ended else f"{job.id}: still running")
    return "\n".join(lines)


class _BackgroundTool(Tool):
    """A tool on one of the session's background commands, named by the id run_command gave.
    Read-only: it reads or stops only what pleat started for this session, no change the user
    must approve."""

    parameters = _PARAMETERS
    main_argument = "id"
    read_only = True

    def __init__(self, commands: BackgroundCommands) -> None:
        self.commands = commands


class CommandOutputTool(_BackgroundTool):
    """The output of a background command since the last read."""

    name = "command_output"
    description = "A background command's output since the last read; its exit code once ended."

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        job = self.commands.get(args["id"])
        try:  # at most what fits the call's budget, so nothing of it is cut
            text, left, ended = await asyncio.to_thread(job.read_new, ctx.budget.safe_chars)
        except OSError as error:
            raise ToolError(f"cannot read {job.id}'s output: {error.strerror or error}") from None
        body = text.rstrip("\n") or "(no new output)"
        exit_code = job.exit_code if ended else None
        meta = {"background_id": job.id, "exit_code": exit_code, "running": not ended}
        return ToolOutput(f"{body}\n{_status(job, left, ended)}", meta=meta)


class CommandStopTool(_BackgroundTool):
    """Stop a background command (its whole process group)."""

    name = "command_stop"
    description = "Stop a background command and every process it started."

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        job = self.commands.get(args["id"])
        if job.ended:
            return ToolOutput(f"{job.id} had already ended: {job.state()}")
        await self.commands.stop(job)
        return ToolOutput(f"{job.id} stopped: {job.state()}", meta={"background_id": job.id})


def background_tools(commands: BackgroundCommands) -> list[Tool]:
    """The tools reading and stopping `commands`."""
    return [CommandOutputTool(commands), CommandStopTool(commands)]


class Tools(Protocol):
    """Tools by name (tools.registry.ToolRegistry)."""

    def get(self, name: str) -> Tool | None: ...


def background_of(tools: Tools) -> BackgroundCommands | None:
    """The background commands of a registry (its run_command's), or None."""
    shell = tools.get("run_command")
    background = getattr(shell, "background", None)
    return background if isinstance(background, BackgroundCommands) else None


def with_background(tool: Tool, commands: BackgroundCommands) -> Tool:
    """`tool` bound to `commands` when it starts, reads or stops background commands (a
    sub-agent's own), otherwise `tool` itself."""
    if isinstance(tool, CommandOutputTool | CommandStopTool):
        return type(tool)(commands)
    if isinstance(tool, RunCommandTool):
        return RunCommandTool(tool.default_timeout, commands)
    return tool


async def close_background(tools: Tools, ending: str) -> None:
    """Stop every background command of a registry (the run or the session ends)."""
    background = background_of(tools)
    if background is not None:
        await background.close(ending)
