"""`pleat -p "/fix-issue 123"`: which command a headless prompt names (a command file or a built-in:
agent/commands/resolution.py, as in the TUI), a custom command's prompt expanded for a headless
turn (and `pleat -p "/help"`, a command of the TUI only, refused); pleat's built-in prompts
(/init, /review) are expanded here too.

The command machinery is imported only for a prompt that starts with a slash: an ordinary
prompt (and the TUI, which imports agent.headless.run) does not pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from agent.slash.custom import CustomPrompt

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.commands.builtin import Builtin
    from agent.commands.catalog import CustomCommand
    from agent.commands.files import CommandSource
    from agent.turn.loop import Agent


@dataclass(frozen=True)
class Typed:
    """A prompt naming a slash command: the name as typed (without the slash), the text after it,
    and what it runs (None: nothing is called so)."""

    name: str
    arguments: str
    command: Builtin | CustomCommand | None

    @property
    def builtin(self) -> Builtin | None:
        from agent.commands.builtin import Builtin

        return self.command if isinstance(self.command, Builtin) else None


def typed_command(
    workspace: Path, prompt: str, err: TextIO, plugin_sources: Sequence[CommandSource] = ()
) -> Typed | None:
    """What a prompt starting with `/name` runs (the workspace's command files and the enabled
    plugins' read, what they skip or shadow said on `err`); None for an ordinary prompt or a
    path."""
    if not prompt.lstrip().startswith("/"):
        return None
    from agent.commands.catalog import CommandCatalog, invocation
    from agent.commands.resolution import fixed_builtin, resolve

    found = invocation(prompt)
    if found is None:
        return None
    name, arguments = found
    fixed = fixed_builtin(name)
    if fixed is not None:  # /pleat:NAME, /help, /quit: no file is read
        return Typed(name, arguments, fixed)
    catalog = CommandCatalog(workspace, plugin_sources=plugin_sources)
    catalog.refresh()
    for note in catalog.new_notes():
        err.write(f"pleat: note: {note}\n")
    return Typed(name, arguments, resolve(name, catalog))


def tui_only_refusal(typed: Typed | None) -> str | None:
    """The one line refusing a prompt that runs a built-in slash command a headless run does not
    take (`/help`, `/model`, `/quit` ...: agent/commands/builtin.py): sent to the model it would
    be a wasted, puzzling request. None otherwise."""
    command = typed.builtin if typed is not None else None
    if typed is None or command is None or command.headless:
        return None
    from agent.commands.builtin import HEADLESS_NAMES

    takes = ", ".join(f"/{name}" for name in sorted(HEADLESS_NAMES))
    return (
        f"/{typed.name} works in pleat's terminal UI only; a headless run takes {takes} and "
        "custom commands (options: pleat --help)"
    )


class CommandRefused(Exception):
    """The custom command cannot be expanded; the message is one line."""


def custom_prompt(
    agent: Agent, typed: Typed | None, prompt: str, err: TextIO
) -> CustomPrompt | None:
    """The prompt a custom command (or a built-in prompt: /init, /review) expands to, said on
    `err` with its notes; None when the prompt names neither (it is then sent as written, as
    before custom commands). Raises CommandRefused when the command cannot be expanded."""
    if typed is None:
        return None
    from agent.commands.builtin_prompts import PROMPTS
    from agent.commands.catalog import CustomCommand
    from agent.slash.context import Refused
    from agent.slash.custom import expand_command

    builtin, name, arguments, command = typed.builtin, typed.name, typed.arguments, typed.command
    if builtin is not None and builtin.name in PROMPTS:  # pleat's own (builtin_prompts.py)
        return builtin_prompt(agent, builtin.name, prompt.strip(), arguments, err)
    if not isinstance(command, CustomCommand):  # a TUI-only built-in was refused before
        err.write(f"pleat: note: /{name} is not a command; sent to the model as written\n")
        return None
    try:
        expanded = expand_command(agent, command, prompt, arguments)
    except Refused as error:
        raise CommandRefused(str(error)) from error
    err.write(f"pleat: /{name}: {expanded.said}\n")
    for note in expanded.notes:
        err.write(f"pleat: note: /{name}: {note}\n")
    return expanded


def builtin_prompt(agent: Agent, name: str, typed: str, focus: str, err: TextIO) -> CustomPrompt:
    """The request of a built-in prompt (/init, /review), said on `err`; raises CommandRefused
    when it has nothing to work on (/review outside a repository, or with nothing changed)."""
    from agent.commands.builtin_prompts import PROMPTS, PromptRefused
    from agent.permissions.policy import READ_ONLY_KEY

    try:
        built = PROMPTS[name](agent.context.workspace, typed, focus)
    except PromptRefused as error:
        raise CommandRefused(str(error)) from error
    only_reads = " (this request only reads: writes and commands are refused)"
    reading = only_reads if READ_ONLY_KEY in built.meta else ""
    err.write(f"pleat: /{name}: pleat's built-in prompt{reading}\n")
    return CustomPrompt(built.text, built.meta, typed)
