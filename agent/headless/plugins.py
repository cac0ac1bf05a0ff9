"""The enabled plugins in a headless run: read, their notes said, their hooks and servers run
when approved before or by --yes (named in one line), otherwise one line says how to allow them."""

from __future__ import annotations

from typing import TextIO

from agent.hooks.runner import HookSet
from agent.mcp.manager import McpServers
from agent.plugins.loaded import Plugins
from agent.plugins.parts import gate, waiting_line


def headless_plugins(
    plugins: Plugins,
    hooks: HookSet,
    servers: McpServers,
    *,
    approve_everything: bool,
    err: TextIO,
) -> Plugins:
    """The run's plugins (agent/plugins/loaded.py load_plugins: pleat's own state, and Claude
    Code's `enabledPlugins` and `extraKnownMarketplaces`); their approved hooks join `hooks` and
    their approved servers `servers`."""
    gated = gate(plugins, approve_all=approve_everything)
    hooks.add(gated.hooks)
    servers.add(gated.servers)
    lines = [*plugins.notes, *gated.lines, *map(waiting_line, gated.waiting)]
    for line in lines:
        print(f"pleat: note: {line}", file=err)
    return plugins
