"""/lsp: the session's language servers, each with its languages, its state and why (server text
made visible: a server's error or stderr may hold escape sequences)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agent.events import CommandOutput, SessionEvent
from agent.slash.context import CommandContext
from agent.terminal_text import visible
from tools.lsp.manager import LanguageServers

# Said when no server has started in this session yet.
NONE_YET = (
    "No language server has started in this session yet: one starts when the model first reads "
    "or edits a file of its language (python, typescript, go, rust, c; more with [lsp.NAME] in "
    "config.toml)."
)
# Said when they are turned off.
TURNED_OFF = "Language servers are off ([lsp] enabled = false, or PLEAT_LSP=off)."


def lsp_report(servers: LanguageServers | None) -> str:
    """One line per server (or per language whose server is missing)."""
    if servers is None or not servers.settings.enabled:
        return TURNED_OFF
    rows = servers.status()
    if not rows:
        return NONE_YET
    sandbox = servers.sandbox
    where = "in the sandbox" if sandbox is not None and sandbox.active else "as you (no sandbox)"
    lines = [f"Language servers ({len(rows)}), run {where}:"]
    for row in rows:
        parts = [", ".join(row.languages), row.server or "(none)", row.state, row.detail]
        lines.append(visible(" · ".join(part for part in parts if part)))
    return "\n".join(lines)


async def lsp(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """Which language servers run, for which languages, in what state."""
    servers = ctx.controller.language_servers if ctx.controller is not None else None
    if servers is None:
        agent, _session = ctx.working()
        found = agent.context.language_servers
        servers = found if isinstance(found, LanguageServers) else None
    yield CommandOutput(lsp_report(servers))
