"""The questions at start about what a project's files would run: its .mcp.json's servers, its
Claude Code hooks. Each lists all of it; used (y) or not (n)."""

from __future__ import annotations

import os
import re
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from agent.hooks.claude_settings import SettingsHooks
from agent.hooks.config import HookSpec
from agent.mcp.disclosure import server_lines, shown
from agent.mcp.project_file import PROJECT_FILE, ProjectServers
from agent.plugins.parts import ROOT_VARIABLE, RunParts
from agent.terminal_text import visible
from tui.screens.question import QuestionScreen


class ProjectApprovalScreen(QuestionScreen[bool]):
    """A title, every item the file would run (each in full), and what the answer means;
    dismisses with True when the user allows them (remembered for this content), False
    otherwise."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Use them"),
        Binding("n", "answer(False)", "Not now"),
        Binding("escape", "answer(False)", "Not now", show=False),
    ]
    # Enter on the focused button must never run a program by accident: start on "Not now".
    AUTO_FOCUS = "#no"

    def __init__(self, title: str, items: list[str], note: str) -> None:
        super().__init__()
        self.title_text = title
        self.items = items
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="project-approval"):
            yield Label(self.title_text, id="project-approval-title", markup=False)
            with VerticalScroll(id="project-approval-items"):
                for item in self.items:
                    yield Static(item, markup=False, classes="project-approval-item")
            yield Static(self.note, id="project-approval-note", markup=False)
            with Horizontal(id="project-approval-buttons"):
                yield Button("Use them (y)", id="yes", variant="success")
                yield Button("Not now (n)", id="no", variant="error")

    def action_answer(self, allowed: bool) -> None:
        self.dismiss(allowed)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")


class McpApprovalScreen(ProjectApprovalScreen):
    """What each server of the project's .mcp.json would run, all of it (command, args, cwd,
    env, url, headers: agent/mcp/disclosure.py)."""

    def __init__(self, project: ProjectServers) -> None:
        count = len(project.servers)
        super().__init__(
            f"This project's {PROJECT_FILE} would start {count} MCP "
            f"server{'s' if count != 1 else ''}:",
            ["\n".join(server_lines(server, os.environ)) for server in project.servers],
            "They run with your permissions. Yes is remembered for this workspace until "
            f"{PROJECT_FILE} changes; No asks again next time.",
        )


class HookApprovalScreen(ProjectApprovalScreen):
    """Every hook of a project's Claude Code settings file: its event, matcher and command."""

    def __init__(self, hooks: SettingsHooks) -> None:
        count = len(hooks.specs)
        plural = "s" if count != 1 else ""
        items = [hook_line(spec) for spec in hooks.specs]
        items += [f"setting {shown(line)}" for line in hooks.others]
        what = f"would run {count} hook{plural} (shell commands, at the events named)"
        if hooks.others:
            what = f"{what if count else 'has'} and settings that loosen pleat or run a command"
        super().__init__(
            f"This project's {visible(hooks.label)} {what}:",
            items,
            "They run with your permissions, outside the sandbox. Yes is remembered for this "
            "workspace until any of these change, or a script of the workspace they name; the "
            "settings other than hooks take effect from the next start. No asks again next "
            "time.",
        )


class PluginApprovalScreen(ProjectApprovalScreen):
    """Every hook and MCP server of an enabled plugin, in full."""

    def __init__(self, parts: RunParts) -> None:
        hooks = [hook_line(spec) for spec in parts.hooks]
        servers = ["\n".join(server_lines(server, os.environ)) for server in parts.servers]
        super().__init__(
            f"The {visible(parts.label)} would run these hooks and MCP servers "
            f"({ROOT_VARIABLE} is {visible(str(parts.root))}):",
            [*hooks, *servers],
            "They run with your permissions, outside the sandbox. Yes is remembered until the "
            "plugin's hooks or servers change (a new install); No asks again next time.",
        )


def hook_line(spec: HookSpec) -> str:
    """A hook on one line, every character of it visible: the file is the repository's, so a
    line break or a run of spaces must not hide the rest of a command."""
    where = f" ({shown(spec.matcher.pattern)})" if spec.matcher.pattern else ""
    condition = f" if {shown(spec.condition)}" if spec.condition else ""
    command = re.sub(r" {4,}", lambda run: f" ⟨{len(run.group())} spaces⟩ ", spec.command)
    return f"{spec.event}{where}{condition}: {shown(command)}"
