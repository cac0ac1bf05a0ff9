"""The settings that are tables (hooks, MCP servers, the status line, keys, web search): each
read by a parser of its own, which imports its checker only when the table is given."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config_checks import ConfigError, only_in_file
from sessions.short_text import quoted

if TYPE_CHECKING:
    from agent.hooks.config import HookSpec
    from agent.status_line.spec import StatusLineSpec
    from tools.lsp.settings import LspSettings
    from tools.web_search_settings import WebSearchSettings

# The hooks' tables (agent/hooks/config.py): commands to run, so config.toml only (an environment
# variable or a flag is no place to write them).
HOOKS = "hooks"
# The tables of MCP servers, [mcp_servers.NAME] (agent/mcp/settings.py checks them).
MCP_SERVERS = "mcp_servers"
# The [status_line] table (agent/status_line/spec.py): a command, so config.toml only, as hooks.
STATUS_LINE = "status_line"
# The [web_search] table (tools/web_search_settings.py): which search web_search uses.
WEB_SEARCH = "web_search"
# The [lsp] table, or `lsp = false` (PLEAT_LSP=off): the language servers (tools/lsp/settings.py).
LSP = "lsp"
# The [keys] table: `action = "key"` lines that rebind the TUI's keys.
KEYS = "keys"

# A table's parser: its key as the user wrote it, its value, where it came from, and the config
# file's path (named in the error of a table that may be set there only).
TableParser = Callable[[str, Any, str, Path], Any]


def hooks_table(label: str, value: Any, source: str, path: Path) -> tuple[HookSpec, ...]:
    """The hooks' tables, from the config file only."""
    from agent.hooks.config import HookConfigError, parse_hooks

    only_in_file(label, source, "hooks are", path)
    try:
        return parse_hooks(value)
    except HookConfigError as error:
        raise ConfigError(f"{source}: {error}") from None


def status_line_table(label: str, value: Any, source: str, path: Path) -> StatusLineSpec:
    """The [status_line] table, from the config file only, strictly: its first problem is the
    error."""
    from agent.status_line.spec import parse_status_line

    only_in_file(label, source, "the status line is", path)
    spec, problems = parse_status_line(value, source, label=label)
    if problems or spec is None:
        raise ConfigError(problems[0] if problems else f"{source}: {label} is not usable")
    return spec


def key_table(label: str, value: Any, source: str, path: Path) -> tuple[tuple[str, object], ...]:
    """The [keys] table, from the config file only, as (action, key) pairs: the TUI checks each
    pair (tui/keymap.py), says in one line what it cannot use and binds the rest."""
    only_in_file(label, source, "keys are", path)
    if not isinstance(value, dict):
        raise ConfigError(
            f'{source}: {label} must be a table of action = "key" lines, e.g. '
            f'[keys] edit_prompt = "ctrl+t", got {quoted(value)}'
        )
    return tuple(value.items())


def web_search_table(label: str, value: Any, source: str, path: Path) -> WebSearchSettings:
    """The [web_search] table, checked by tools/web_search_settings.py."""
    from tools.web_search_settings import parse_web_search

    try:
        return parse_web_search(value, label)
    except ValueError as error:
        raise ConfigError(f"{source}: {error}") from None


def mcp_servers_table(label: str, value: Any, source: str, path: Path) -> Any:
    """The [mcp_servers.NAME] tables, checked by agent/mcp/settings.py."""
    from agent.mcp.settings import SettingsError, from_config

    try:
        return from_config(value, source)
    except SettingsError as error:
        raise ConfigError(f"{source}: {error}") from None


def lsp_table(label: str, value: Any, source: str, path: Path) -> LspSettings:
    """The [lsp] table, or its switch alone (`lsp = false`, PLEAT_LSP=off), from any source:
    read by tools/lsp/settings.py."""
    from tools.lsp.settings import LspSettingsError, parse_lsp

    try:
        return parse_lsp(value, label)
    except LspSettingsError as error:
        raise ConfigError(f"{source}: {error}") from None


TABLE_PARSERS: dict[str, TableParser] = {
    HOOKS: hooks_table,
    KEYS: key_table,
    LSP: lsp_table,
    MCP_SERVERS: mcp_servers_table,
    STATUS_LINE: status_line_table,
    WEB_SEARCH: web_search_table,
}
