"""`!` shell mode: a prompt that starts with `!` runs the rest as a command in the workspace, with
no model call; its output shows as a command block and joins the conversation for the next
request (agent/conversation/shell_line.py). Esc stops it; typed while pleat works, it waits in
the queue, in order, and runs when the work ends (agent/turn/prompt_queue.py)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui import lifecycle, queued
from tui.host import Host

if TYPE_CHECKING:
    from agent.turn.loop import Agent

# How a command line starts (Claude Code's bash mode key; the queue knows it too).
PREFIX = "!"
# The status bar's state while a `!` command runs.
RUNNING = "running your command"
# Said for a `!` with no command after it.
USAGE = "type a command after `!`, e.g. `!git status`: it runs in the workspace, no model call"
# The block's result when Esc stopped the command (it and its children were killed).
STOPPED = "interrupted: the command and its children were stopped; nothing joined the conversation"


def is_shell_line(text: str) -> bool:
    return text.startswith(PREFIX)


async def submitted(host: Host, text: str) -> None:
    """A `!` line was sent (already in the prompt's history): run it now, or queue it behind the
    running work."""
    command = text.removeprefix(PREFIX).strip()
    agent = host.agent
    if not command:
        await host.conversation.add_notice(USAGE, "error")
        return
    if agent is None:
        await host.conversation.add_user(text)
        await host.conversation.add_markdown(host.unavailable or "", "help")
        return
    if host.busy:  # behind the work and what was sent before it, in order
        queued.put(host, f"{PREFIX}{command}")
        return
    start(host, agent, command)


def start(host: Host, agent: Agent, command: str) -> None:
    """Run `command` (without its `!`) as the app's work: one at a time, Esc stops it."""
    host.start_work("shell", run_shell(host, agent, command))


async def run_shell(host: Host, agent: Agent, command: str) -> None:
    """The work of a `!` line: its block, the command, the result shown open."""
    from agent.conversation.shell_line import run_shell_line

    block = await host.conversation.add_tool_call(f"{PREFIX} {command}")
    host.status.state = RUNNING
    try:
        result = await run_shell_line(agent, command)
    except asyncio.CancelledError:
        await block.finish(STOPPED, True, {})
        raise
    except Exception as error:  # a bug: one red line, the log has it
        host.log.error(error)
        await block.finish(f"internal error: {type(error).__name__}: {error}", True, {})
        return
    finally:
        host.status.state = "idle"
        lifecycle.refresh_meter(host)
        host.idle.arm()
    await block.finish(result.output, result.is_error, {})
    block.collapsed = False  # the user asked for this output: shown, not folded away
    if result.problem is not None:
        await host.conversation.add_notice(result.problem.message, "error")
