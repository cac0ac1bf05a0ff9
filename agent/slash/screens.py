"""The built-ins that are a front end's own screen or act (the chunk browser, the model and
plugin pickers, vim keys, themes, help, quitting): the front end does them, or says it cannot."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from agent.events import SessionEvent
from agent.slash.context import CommandContext

Body = Callable[[CommandContext, str], AsyncIterator[SessionEvent]]


def front_screen(name: str) -> Body:
    """The body of the built-in that is the front end's screen `name`, given the argument."""

    async def body(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
        await ctx.front.show(name, arg)
        return
        yield  # an async generator that says nothing itself

    return body


chunks = front_screen("chunks")  # browse and search the archived chunks
model = front_screen("model")  # pick a model, or switch to ARG
plugin = front_screen("plugin")  # Claude Code plugins: installed, enabled; enable or disable one
vim = front_screen("vim")  # the prompt's vim keys on or off
theme = front_screen("theme")  # pick a colour theme, or switch to ARG
show_help = front_screen("help")  # the commands and keys


async def quit_front_end(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """Leave pleat."""
    ctx.front.quit()
    return
    yield
