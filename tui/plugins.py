"""Plugins in the TUI: `/plugin` lists the installed ones and enables or disables one, and at
start each enabled plugin's hooks and MCP servers are asked about until approved."""

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


async def ask_approvals(host: Host) -> None:
    """Ask about each enabled plugin whose hooks and servers were never approved in this
    content; those allowed run from now on (and are remembered). Once per run."""
    from agent.plugins.parts import approve
    from agent.session.project_questions import plugin_question

    controller = host.controller
    if controller is None:
        return
    waiting, controller.plugins_waiting = controller.plugins_waiting, []
    for parts in waiting:
        if not await host.approvals.asking.approve_project(plugin_question(parts)):
            line = f"{parts.label}'s hooks and servers do not run; asked again next time"
            await host.conversation.add_notice(line)
            continue
        controller.hooks.add(parts.hooks)
        if host.agent is not None:
            host.agent.hooks.hooks_added()
        controller.mcp.add(parts.servers)
        if controller.mcp_opened:
            await controller.mcp.start()
        try:
            await asyncio.to_thread(approve, parts)
        except OSError as error:  # used now all the same; asked again next time
            await host.conversation.add_notice(f"cannot remember the approval: {error}", "error")
