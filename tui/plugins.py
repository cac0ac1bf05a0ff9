"""Plugins in the TUI: `/plugin` lists the installed ones and enables or disables one (their
hooks and servers are asked about at start by the session runtime: agent/session/lifecycle.py)."""

from __future__ import annotations

import asyncio

from tui.host import Host

# How /plugin is used, said when its argument is not understood.
USAGE = "/plugin lists the plugins; /plugin enable NAME@MARKET or /plugin disable NAME@MARKET"


async def plugin(host: Host, arg: str) -> None:
    """/plugin: the installed plugins and the marketplaces; `enable|disable NAME@MARKET`."""
    from agent.plugins.files import PluginError
    from agent.plugins.install import set_enabled
    from agent.plugins.listing import marketplace_lines, plugin_lines

    verb, _, key = arg.strip().partition(" ")
    if not verb:
        try:
            lines = [
                "Plugins:",
                *await asyncio.to_thread(plugin_lines),
                "",
                "Marketplaces:",
                *await asyncio.to_thread(marketplace_lines),
            ]
        except PluginError as error:
            lines = [str(error)]
        await host.conversation.add_notice("\n".join(lines))
        return
    if verb not in ("enable", "disable") or not key.strip():
        await host.conversation.add_notice(USAGE, "error")
        return
    try:
        line = await asyncio.to_thread(set_enabled, key.strip(), verb == "enable")
    except (PluginError, OSError) as error:
        await host.conversation.add_notice(str(error), "error")
        return
    await host.conversation.add_notice(line)
