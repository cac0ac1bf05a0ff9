"""The .mcp.json question at start: the servers a project's file would run, used (y) or not (n)."""

from __future__ import annotations

import os
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from agent.mcp.disclosure import server_lines
from agent.mcp.project_file import PROJECT_FILE, ProjectServers
from tui.screens.question import QuestionScreen


class McpApprovalScreen(QuestionScreen[bool]):
    """Lists what each server of the project's .mcp.json would run, all of it (command, args,
    cwd, env, url, headers: agent/mcp/disclosure.py); dismisses with True when
    the user allows them (remembered for this file's content), False otherwise."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Use them"),
        Binding("n", "answer(False)", "Not now"),
        Binding("escape", "answer(False)", "Not now", show=False),
    ]
    # Enter on the focused button must never run a program by accident: start on "Not now".
    AUTO_FOCUS = "#no"

    def __init__(self, project: ProjectServers) -> None:
        super().__init__()
        self.project = project

    def compose(self) -> ComposeResult:
        count = len(self.project.servers)
        with Vertical(id="mcp-approval"):
            yield Label(
                f"This project's {PROJECT_FILE} would start {count} MCP "
                f"server{'s' if count != 1 else ''}:",
                id="mcp-approval-title",
            )
            with VerticalScroll(id="mcp-approval-servers"):
                for server in self.project.servers:
                    lines = server_lines(server, os.environ)
                    yield Static("\n".join(lines), markup=False, classes="mcp-server")
            yield Static(
                "They run with your permissions. Yes is remembered for this workspace until "
                f"{PROJECT_FILE} changes; No asks again next time.",
                id="mcp-approval-note",
                markup=False,
            )
            with Horizontal(id="mcp-approval-buttons"):
                yield Button("Use them (y)", id="yes", variant="success")
                yield Button("Not now (n)", id="no", variant="error")

    def action_answer(self, allowed: bool) -> None:
        self.dismiss(allowed)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")
