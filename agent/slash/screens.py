"""The built-ins that are a front end's own screen or act (the chunk browser, the model and
plugin pickers, vim keys, themes, help, quitting): the front end does them, or says it cannot."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agent.events import SessionEvent
from agent.slash.context import CommandContext


async def chunks(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """Browse and search the archived chunks."""
    await ctx.front.show("chunks", arg)
    return
    yield  # an async generator that says nothing itself


async def model(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """Pick a model, or switch to ARG."""
    await ctx.front.show("model", arg)
    return
    yield


async def plugin(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """Claude Code plugins: installed, enabled or not; enable or disable one."""
    await ctx.front.show("plugin", arg)
    return
    yield


async def vim(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """The prompt's vim keys on or off."""
    await ctx.front.show("vim", arg)
    return
    yield


async def theme(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """Pick a colour theme, or switch to ARG."""
    await ctx.front.show("theme", arg)
    return
    yield


async def show_help(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """The commands and keys."""
    await ctx.front.show("help", arg)
    return
    yield


async def quit_front_end(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """Leave pleat."""
    ctx.front.quit()
    return
    yield
