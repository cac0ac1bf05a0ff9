"""Running a built-in slash command, the same way in every front end: its row
(agent/commands/builtin.py) names its body, imported only when it runs; the body's refusals and
failures become a failed CommandOutput, and the context keeps how it ended (its outcome)."""

from __future__ import annotations

import importlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent.events import CommandOutput, SessionEvent
from agent.slash.context import CommandContext, Failed, NotHere, Refused

if TYPE_CHECKING:
    from agent.commands.builtin import Builtin
    from agent.commands.files import CommandSource

# A built-in's body: the context and the text after the command, to the events it answers with.
Body = Callable[[CommandContext, str], AsyncIterator[SessionEvent]]
# Said when a command needs the agent and there is none (no model configured).
NO_AGENT = "There is no model to work with yet (see the configuration help above)."


def body_of(command: Builtin) -> Body:
    """The body the row names (`agent.slash.rewind.undo`), imported now."""
    module, _, name = command.body.rpartition(".")
    body: Body = getattr(importlib.import_module(module), name)
    return body


async def run_builtin(
    ctx: CommandContext, command: Builtin, arg: str
) -> AsyncGenerator[SessionEvent, None]:
    """Run one built-in: its events; a refusal or failure is one failed CommandOutput, and
    `ctx.outcome` says how it ended (pleat -p's exit code)."""
    if command.needs_agent and ctx.agent is None:
        ctx.outcome = "refused"
        yield CommandOutput(NO_AGENT, failed=True)
        return
    try:
        async for event in body_of(command)(ctx, arg):
            yield event
    except Refused as error:
        ctx.outcome = "refused"
        yield CommandOutput(str(error), failed=True)
    except Failed as error:
        ctx.outcome = "failed"
        yield CommandOutput(str(error), failed=True)
    except NotHere:
        ctx.outcome = "refused"
        yield CommandOutput(f"/{command.name} works in pleat's terminal UI only", failed=True)


def typed_builtin(
    workspace: Path, text: str, plugin_sources: tuple[CommandSource, ...] = ()
) -> tuple[Builtin, str] | None:
    """The built-in a typed line `/name arg` runs and its argument (agent/commands/resolution.py:
    a command file of the name runs instead, `/pleat:name` always the built-in); None when the
    line runs a command file, names nothing, or is no command."""
    from agent.commands.builtin import Builtin
    from agent.commands.catalog import CommandCatalog, invocation
    from agent.commands.resolution import fixed_builtin, resolve

    found = invocation(text)
    if found is None:
        return None
    name, arguments = found
    command = fixed_builtin(name)
    if command is None:
        catalog = CommandCatalog(workspace, plugin_sources=plugin_sources)
        catalog.refresh()
        resolved = resolve(name, catalog)
        command = resolved if isinstance(resolved, Builtin) else None
    return None if command is None else (command, arguments.strip())
