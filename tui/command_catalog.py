"""The custom commands' catalog in the TUI: read off the event loop on every use (the / list, the
palette and /help list them after the built-ins, saying which is which where a command file has a
built-in's name: agent/commands/resolution.py), what was skipped said once."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.terminal_text import visible
from tui.host import Host

if TYPE_CHECKING:
    from agent.commands.catalog import CommandCatalog, CustomCommand
    from agent.commands.resolution import Listed

# The built-ins' table and the loader are imported after the first frame, when the / list first
# opens and when the catalog is made: the / list shows the built-ins until then.

# Characters of the name and argument hint column in the / list: the built-ins' usage column.
USAGE_COLUMN = 18
# ASCII punctuation: what Markdown may read as markup, and what a backslash makes plain text.
MARKDOWN_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")


def whose(command: CustomCommand, note: str) -> str:
    """Whose a command file is, as the / list and the palette say it: its scope, and with a
    built-in's name its file and how the built-in is reached."""
    return f"{command.scope} command {command.shown}; {note}" if note else command.scope


def label(row: Listed) -> str:
    """How the / list shows a command: usage, description, and (a command file's) whose it is,
    or (a built-in's) which file has its bare name."""
    from agent.commands.builtin import Builtin

    command = row.command
    if isinstance(command, Builtin):
        tail = f" ({row.note})" if row.note else ""
        return f"{row.usage:<{USAGE_COLUMN}} {command.help}{tail}"
    described = f"{command.description} ({whose(command, row.note)})"
    return f"{row.usage:<{USAGE_COLUMN}} {described}".rstrip()


def choices(host: Host) -> list[tuple[str, str]]:
    """Every command for the / list as (name, label): the built-ins, then the custom ones
    (as last read: the list refreshes them when it opens)."""
    if host.custom_commands is None:  # the files are not read yet: the built-ins alone
        from agent.commands.builtin import BUILTIN

        return [(c.name, f"{c.usage:<{USAGE_COLUMN}} {c.help}") for c in BUILTIN]
    from agent.commands.resolution import listing

    return [(row.typed, label(row)) for row in listing(host.custom_commands.commands)]


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


def builtin_help_line(row: Listed) -> str:
    """A built-in's /help line; one a command file shadows says which file has its name."""
    from agent.commands.builtin import Builtin

    assert isinstance(row.command, Builtin)
    note = f" ({_plain(row.note)})" if row.note else ""
    return f"- `{row.usage}`: {row.command.help}{note}"


def help_lines(rows: Sequence[Listed]) -> list[str]:
    """The /help section of the custom commands (none: no section). Their text comes from
    files: control characters are made visible and Markdown is escaped."""
    if not rows:
        return []
    from agent.commands.builtin import Builtin

    lines = ["", "**Custom commands**", ""]
    for row in rows:
        command = row.command
        assert not isinstance(command, Builtin)
        hint = f" {_plain(command.argument_hint)}" if command.argument_hint else ""
        note = f"; {_plain(row.note)}" if row.note else ""
        lines.append(
            f"- `/{command.name}`{hint}: {_plain(command.description)} "
            f"({command.scope}, {_plain(command.shown)}{note})"
        )
    return lines


def _plain(text: str) -> str:
    """`text` shown as written in Markdown: every ASCII punctuation character escaped."""
    return MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", visible(text))
