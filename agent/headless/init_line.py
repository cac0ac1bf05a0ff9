"""stream-json's first line: Claude Code's `system`/`init` message for a headless run (the session,
the model, the tools, the MCP servers, the slash commands, the permission mode ...), with
pleat's own names beside Claude Code's."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from agent.claude_code.tools import claude_name
from agent.headless.lines import new_uuid
from agent.mcp.server import ServerState, client_version
from agent.model.discovery import PROVIDER_DEFAULTS
from agent.permissions.modes import CLAUDE_MODES
from tools.sandbox.policy import Sandbox

if TYPE_CHECKING:
    from agent.mcp.manager import McpServers
    from agent.turn.loop import Agent

# An MCP server's state as Claude Code's init line says it (a server still starting is
# "pending"; one that stopped can no longer be called: "failed").
MCP_STATUS: dict[ServerState, str] = {
    "starting": "pending",
    "running": "connected",
    "failed": "failed",
    "stopped": "failed",
}
# Claude Code's apiKeySource when pleat's own api_key setting (--api-key, config.toml,
# PLEAT_API_KEY) gives the key, and when no key is in use (a local server).
CONFIGURED_KEY = "api_key"
NO_KEY = "none"
# Claude Code's output style; pleat has only its own.
OUTPUT_STYLE = "default"


def api_key_source(agent: Agent) -> str:
    """Where the model's key comes from: pleat's api_key setting, the provider's variable that
    litellm reads (its name, as Claude Code says ANTHROPIC_API_KEY), or none."""
    if agent.llm.settings.api_key:
        return CONFIGURED_KEY
    provider = agent.llm.model.partition("/")[0]
    for known in PROVIDER_DEFAULTS:
        if known.provider == provider and os.environ.get(known.key):
            return known.key
    return NO_KEY


def slash_commands(agent: Agent, headless: Iterable[str]) -> list[str]:
    """The slash commands a headless run takes, without their slash as Claude Code lists them:
    pleat's (`headless`, e.g. "/undo"; one a command file shadows as "pleat:undo",
    agent/commands/resolution.py) and the workspace's custom commands."""
    from agent.commands.builtin import BY_NAME
    from agent.commands.builtin_prompts import PROMPTS
    from agent.commands.catalog import CommandCatalog

    catalog = CommandCatalog(agent.context.workspace)
    catalog.refresh()
    names = [*(name.removeprefix("/") for name in headless), *PROMPTS]  # /init, /review too
    spelled = [BY_NAME[n].qualified[1:] if catalog.get(n) else n for n in sorted(names)]
    return [*spelled, *(command.name for command in catalog.commands)]


def mcp_servers(servers: McpServers | None) -> list[dict[str, str]]:
    """Each configured MCP server with its state (those disabled in the configuration too)."""
    if servers is None:
        return []
    listed = [{"name": s.name, "status": MCP_STATUS[s.state]} for s in servers.servers]
    return listed + [{"name": name, "status": "disabled"} for name in servers.disabled]


def init_line(
    agent: Agent, session_id: str, servers: McpServers | None, commands: Iterable[str]
) -> dict[str, Any]:
    """The init line: Claude Code's fields, then pleat's (`pleat_tools`, its mode's name, the
    sandbox)."""
    tools = agent.registry.names()
    version = client_version()
    return {
        "type": "system",
        "subtype": "init",
        "uuid": new_uuid(),
        "session_id": session_id,
        "cwd": str(agent.context.workspace),
        "model": agent.llm.model,
        "tools": [claude_name(name) for name in tools],
        "mcp_servers": mcp_servers(servers),
        "permissionMode": CLAUDE_MODES[agent.permissions.mode],
        "slash_commands": slash_commands(agent, commands),
        "apiKeySource": api_key_source(agent),
        # pleat's version where Claude Code gives its own: a script that compares versions
        # takes pleat for an old Claude Code and leaves newer features alone.
        "claude_code_version": version,
        "output_style": OUTPUT_STYLE,
        "skills": [],
        "plugins": [],
        "pleat_version": version,
        "pleat_tools": tools,
        "pleat_permission_mode": agent.permissions.mode,
        "sandbox": sandbox_field(agent.context.sandbox),
    }


def sandbox_field(sandbox: Sandbox | None) -> dict[str, Any]:
    """Where commands run: the mode asked for, whether this machine enforces it (when not,
    every command asks), and whether commands reach the network."""
    if sandbox is None:
        return {"mode": "off", "enforced": False, "network": True}
    return {
        "mode": sandbox.mode,
        "enforced": sandbox.active,
        "network": not sandbox.active or sandbox.network,
    }
