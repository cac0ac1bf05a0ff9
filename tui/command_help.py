"""/help's text: the built-ins, the command files (which is which), and the keys."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from agent.commands.builtin import BUILTIN_NAMESPACE, NAMESPACE_MARK, Builtin
from tui.keys import key_help

if TYPE_CHECKING:
    from agent.commands.resolution import Listed

# The /help line after the built-ins: how a built-in is reached when a file takes its name.
QUALIFIED_HELP = (
    f"Every built-in also answers to `/{BUILTIN_NAMESPACE}{NAMESPACE_MARK}NAME`: a command file "
    "of a built-in's name is what `/NAME` runs, the built-in staying "
    f"`/{BUILTIN_NAMESPACE}{NAMESPACE_MARK}NAME` (`/help` and `/quit` are always pleat's)."
)


# The /help line after the session's tools: those offered only where they work.
SOMETIMES_OFFERED_HELP = (
    "`web_search` joins where a search is set (the provider's, or SearXNG), `lsp` where a "
    "language server is configured or found on PATH, `memory` unless the auto memory is off; "
    "MCP servers' tools: `/mcp`."
)


def tools_help(tools: Sequence[str]) -> str:
    """/help's paragraph on the model's tools in this session."""
    names = ", ".join(f"`{name}`" for name in tools)
    return f"**Tools**\n\nThe model's tools in this session: {names}.\n{SOMETIMES_OFFERED_HELP}"


def help_text(
    rows: Sequence[Listed] | None = None,
    rebound: Mapping[str, str] | None = None,
    tools: Sequence[str] = (),
) -> str:
    """The commands (`rows`: agent/commands/resolution.listing; None: the built-ins alone),
    keys (`rebound`: config.toml's [keys] as bound, tui/keymap.py) and the session's `tools`
    (none: no session yet, and no paragraph)."""
    from agent.commands.resolution import listing
    from tui.command_catalog import builtin_help_line, help_lines

    listed = listing(()) if rows is None else rows
    lines = ["**Commands**", ""]
    lines += [builtin_help_line(row) for row in listed if isinstance(row.command, Builtin)]
    lines += ["", QUALIFIED_HELP]
    lines += help_lines([row for row in listed if not isinstance(row.command, Builtin)])
    text = "\n".join(lines) + "\n\n**Keys**\n\n" + key_help(rebound)
    return text + ("\n\n" + tools_help(tools) if tools else "")
