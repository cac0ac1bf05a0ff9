"""A project approval as every front end shows it: a title, every item in full, what the answer
means (a project's Claude Code settings and hooks, its .mcp.json, a plugin's hooks and servers)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from agent.hooks.claude_settings import SettingsHooks
from agent.hooks.config import HookSpec
from agent.mcp.disclosure import server_lines, shown
from agent.mcp.project_file import PROJECT_FILE, ProjectServers
from agent.plugins.parts import ROOT_VARIABLE, RunParts
from agent.terminal_text import visible

# A run of spaces this long inside a hook's command is shown as a count: a wide gap must not
# push the rest of a command out of sight (four: longer than any spacing a command needs).
SPACE_RUN = re.compile(r" {4,}")


@dataclass(frozen=True)
class ProjectQuestion:
    """What the user is asked about a file of the workspace (or a plugin) that would run
    programs or loosen pleat: `items` each in full, every character visible."""

    kind: str  # "hooks", "mcp" or "plugin": what a front end may show it with
    title: str
    items: tuple[str, ...]
    note: str  # what yes and no mean


def mcp_question(project: ProjectServers) -> ProjectQuestion:
    """What each server of the project's .mcp.json would run, all of it (command, args, cwd,
    env, url, headers: agent/mcp/disclosure.py)."""
    count = len(project.servers)
    return ProjectQuestion(
        "mcp",
        f"This project's {PROJECT_FILE} would start {count} MCP server{'s' if count != 1 else ''}:",
        tuple("\n".join(server_lines(server, os.environ)) for server in project.servers),
        "They run with your permissions. Yes is remembered for this workspace until "
        f"{PROJECT_FILE} changes; No asks again next time.",
    )


def hooks_question(hooks: SettingsHooks) -> ProjectQuestion:
    """Every hook of a project's Claude Code settings file (its event, matcher and command), and
    every other entry that loosens pleat or runs a command."""
    count = len(hooks.specs)
    plural = "s" if count != 1 else ""
    items = [hook_line(spec) for spec in hooks.specs]
    items += [f"setting {shown(line)}" for line in hooks.others]
    what = f"would run {count} hook{plural} (shell commands, at the events named)"
    if hooks.others:
        what = f"{what if count else 'has'} and settings that loosen pleat or run a command"
    return ProjectQuestion(
        "hooks",
        f"This project's {visible(hooks.label)} {what}:",
        tuple(items),
        "They run with your permissions, outside the sandbox. Yes is remembered for this "
        "workspace until any of these change, or a script of the workspace they name; the "
        "settings other than hooks take effect from the next start. No asks again next time.",
    )


def plugin_question(parts: RunParts) -> ProjectQuestion:
    """Every hook and MCP server of an enabled plugin, in full."""
    hooks = [hook_line(spec) for spec in parts.hooks]
    servers = ["\n".join(server_lines(server, os.environ)) for server in parts.servers]
    return ProjectQuestion(
        "plugin",
        f"The {visible(parts.label)} would run these hooks and MCP servers "
        f"({ROOT_VARIABLE} is {visible(str(parts.root))}):",
        (*hooks, *servers),
        "They run with your permissions, outside the sandbox. Yes is remembered until the "
        "plugin's hooks or servers change (a new install); No asks again next time.",
    )


def hook_line(spec: HookSpec) -> str:
    """A hook on one line, every character of it visible: the file is the repository's, so a
    line break or a run of spaces must not hide the rest of a command."""
    where = f" ({shown(spec.matcher.pattern)})" if spec.matcher.pattern else ""
    condition = f" if {shown(spec.condition)}" if spec.condition else ""
    command = SPACE_RUN.sub(lambda run: f" ⟨{len(run.group())} spaces⟩ ", spec.command)
    return f"{spec.event}{where}{condition}: {shown(command)}"
