"""The lines `pleat plugin list`, `pleat plugin marketplace list` and `/plugin` show: every text
from a manifest or a marketplace file made visible (no escape reaches the terminal)."""

from __future__ import annotations

from agent.plugins.files import PluginError
from agent.plugins.state import PluginState, read_state
from agent.terminal_text import visible


def marketplace_lines(state: PluginState | None = None) -> list[str]:
    """Each marketplace pleat knows: its name and where it is read from."""
    state = read_state() if state is None else state
    if not state.marketplaces:
        return ["No marketplaces: pleat plugin marketplace add DIRECTORY-OR-GIT-URL"]
    lines = []
    for name, known in sorted(state.marketplaces.items()):
        source = known.get("source")
        where = ""
        if isinstance(source, dict):
            where = str(source.get("path") or source.get("url") or source.get("repo") or "")
            where = f"{source.get('source')}: {where}"
        lines.append(visible(f"{name}  ({where})"))
    return lines


def plugin_lines(state: PluginState | None = None) -> list[str]:
    """Each installed plugin: plugin@market, its version, enabled or disabled."""
    try:
        state = read_state() if state is None else state
    except PluginError as error:
        return [str(error)]
    if not state.installed:
        return ["No plugins installed: pleat plugin install PLUGIN@MARKETPLACE"]
    lines = []
    for key, installed in sorted(state.installed.items()):
        version = installed.get("version")
        shown = f" {version}" if isinstance(version, str) and version else ""
        on = "enabled" if state.enabled.get(key, False) else "disabled"
        lines.append(visible(f"{key}{shown}  {on}"))
    return lines
