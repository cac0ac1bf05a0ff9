"""The built-ins that say how things stand and change nothing the model sees: /mcp, /sandbox,
/skills, /shells, /memory (its list), /context (its text form)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from agent.events import CommandOutput, SessionEvent
from agent.slash.context import CommandContext, Refused
from agent.terminal_text import visible

# Characters of a command line shown in /shells' list: a long one is cut (its whole text is in
# the conversation, in the run_command call that started it).
COMMAND_CHARS = 120
# /memory's argument outside the terminal UI: a `# note` is added after asking, which needs it.
MEMORY_NOTE_HERE = (
    "/memory takes nothing headless; add a note in the TUI (`# note`) or write it into AGENTS.md "
    "yourself"
)


async def mcp(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """Every MCP server, its state and its tools."""
    from agent.mcp.manager import McpServers
    from agent.mcp.report import report

    agent, _session = ctx.working()
    servers = next((s for s in agent.registry.sources if isinstance(s, McpServers)), None)
    yield CommandOutput(report(servers))


async def sandbox(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """Where commands run, and what this machine enforces."""
    from agent.permissions.sandbox_report import sandbox_report

    agent, _session = ctx.working()
    yield CommandOutput(sandbox_report(agent.context.sandbox, agent.permissions))


async def skills(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """Each skill with its scope, file and description; then a note per skill skipped."""
    from agent.skills.catalog import listing_lines
    from agent.skills.files import load_skills

    found = await asyncio.to_thread(load_skills, ctx.workspace)
    yield CommandOutput("\n".join(listing_lines(found)))


async def shells(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """The session's background commands, running and ended, with their output files."""
    from tools.background_tools import background_of

    agent, _session = ctx.working()
    background = background_of(agent.registry)
    commands = background.all() if background is not None else []
    if not commands:
        yield CommandOutput("No background commands in this session.")
        return
    lines = ["Background commands (command_output reads one, command_stop stops it):"]
    for job in commands:
        command = " ".join(visible(job.command).split())
        if len(command) > COMMAND_CHARS:
            command = command[: COMMAND_CHARS - 1] + "…"
        lines.append(f"  {job.id}  {job.state()}  {command}")
        lines.append(f"      output: {visible(str(job.path))}")
    yield CommandOutput("\n".join(lines))


async def memory(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """The instruction files in use and the auto memory: the front end's screen (to open one in
    $EDITOR; a `# note` added after asking), or the list."""
    from agent.slash.memory_list import memory_lines
    from agent.turn.instruction_set import load_instructions
    from tools.memory import MEMORY_TOOL_NAME, memory_of

    if ctx.front.interactive:
        await ctx.front.show("memory", arg)
        return
    if arg.strip():
        raise Refused(MEMORY_NOTE_HERE)
    agent, _session = ctx.working()
    loaded = await asyncio.to_thread(load_instructions, agent.context.workspace)
    memory = memory_of(agent.registry.get(MEMORY_TOOL_NAME))  # None: the auto memory is off
    lines = await asyncio.to_thread(memory_lines, loaded, agent.nested.in_use(), memory)
    yield CommandOutput("\n".join(lines))


async def context(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """What fills the context window: the front end's screen, or the breakdown as text."""
    from agent.slash.context_report import context_report, report_text

    agent, _session = ctx.working()
    if ctx.front.interactive:
        await ctx.front.show("context", arg)
        return
    report = await asyncio.to_thread(context_report, agent)
    if report is None:
        raise Refused("this session has no compactor")
    yield CommandOutput(report_text(report))
