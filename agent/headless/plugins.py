"""The enabled plugins in a headless run: read, their notes said, their hooks and servers run
when approved before or by --yes (named in one line), otherwise one line says how to allow them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from agent.hooks.runner import HookSet
from agent.mcp.manager import McpServers
from agent.plugins.loaded import Plugins, load_plugins
from agent.plugins.parts import gate, waiting_line


def headless_plugins(
    hooks: HookSet,
    servers: McpServers,
    *,
    approve_everything: bool,
    err: TextIO,
    enabled_plugins: Mapping[str, Any] | None = None,
    known_marketplaces: Mapping[str, Any] | None = None,
) -> Plugins:
    """The run's plugins (Claude Code's `enabledPlugins` and `extraKnownMarketplaces` as read
    from its settings, besides pleat's own state); their approved hooks join `hooks` and their
    approved servers `servers`."""
    plugins = load_plugins(enabled_plugins, known_marketplaces)
    gated = gate(plugins, approve_all=approve_everything)
    hooks.add(gated.hooks)
    servers.add(gated.servers)
    lines = [*plugins.notes, *gated.lines, *map(waiting_line, gated.waiting)]
    for line in lines:
        print(f"pleat: note: {line}", file=err)
    return plugins
