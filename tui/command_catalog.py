"""The custom commands' catalog in the TUI: read off the event loop on every use (the / list, the
palette and /help list them after the built-ins), what was skipped said once."""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from agent.commands.builtin import BUILTIN
from agent.terminal_text import visible
from tui.host import Host

if TYPE_CHECKING:
    from agent.commands.catalog import CommandCatalog, CustomCommand

# The loader is imported after the first frame, when the catalog is made: the / list shows the
# built-ins until then.

# Characters of the name and argument hint column in the / list: the built-ins' usage column.
USAGE_COLUMN = 18
# ASCII punctuation: what Markdown may read as markup, and what a backslash makes plain text.
MARKDOWN_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")


def label(command: CustomCommand) -> str:
    """How the / list shows a custom command: usage, description, and whose it is."""
    return f"{command.usage:<{USAGE_COLUMN}} {command.description} ({command.scope})".rstrip()


def choices(host: Host) -> list[tuple[str, str]]:
    """Every command for the / list as (name, label): the built-ins, then the custom ones
    (as last read: the list refreshes them when it opens)."""
    built_in = [(c.name, f"{c.usage:<{USAGE_COLUMN}} {c.help}") for c in BUILTIN]
    custom = host.custom_commands.commands if host.custom_commands is not None else ()
    return built_in + [(c.name, label(c)) for c in custom]


async def refresh(host: Host) -> CommandCatalog:
    """Read the command files again (in a thread: it lists directories); say once what was
    skipped and why. The catalog is made at the first call."""
    if host.custom_commands is None:
        from agent.commands.catalog import CommandCatalog

        controller = host.controller
        plugins = controller.plugins.command_sources() if controller is not None else ()
        host.custom_commands = CommandCatalog(host.workspace, plugin_sources=plugins)
    catalog = host.custom_commands
    await asyncio.to_thread(catalog.refresh)
    for note in catalog.new_notes():
        await host.conversation.add_notice(f"custom commands: {note}")
    return catalog


async def load(host: Host) -> None:
    """At session start, after the first frame: the commands listed in / and the palette, and
    the files skipped said."""
    await refresh(host)


def help_lines(commands: tuple[CustomCommand, ...]) -> list[str]:
    """The /help section of the custom commands (none: no section). Their text comes from
    files: control characters are made visible and Markdown is escaped."""
    if not commands:
        return []
    lines = ["", "**Custom commands**", ""]
    for command in commands:
        hint = f" {_plain(command.argument_hint)}" if command.argument_hint else ""
        lines.append(
            f"- `/{command.name}`{hint}: {_plain(command.description)} "
            f"({command.scope}, {_plain(command.shown)})"
        )
    return lines


def _plain(text: str) -> str:
    """`text` shown as written in Markdown: every ASCII punctuation character escaped."""
    return MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", visible(text))
