"""The questions at start about what a project's files would run (its .mcp.json's servers, its
Claude Code hooks and settings, a plugin's parts), as a modal: all of it listed; used (y) or not
(n). What is asked is the core's (agent/session/project_questions.py)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from agent.session.project_questions import ProjectQuestion
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

    def __init__(self, question: ProjectQuestion) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="project-approval"):
            yield Label(self.question.title, id="project-approval-title", markup=False)
            with VerticalScroll(id="project-approval-items"):
                for item in self.question.items:
                    yield Static(item, markup=False, classes="project-approval-item")
            yield Static(self.question.note, id="project-approval-note", markup=False)
            with Horizontal(id="project-approval-buttons"):
                yield Button("Use them (y)", id="yes", variant="success")
                yield Button("Not now (n)", id="no", variant="error")

    def action_answer(self, allowed: bool) -> None:
        self.dismiss(allowed)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")


class McpApprovalScreen(ProjectApprovalScreen):
    """A project's .mcp.json servers."""


class HookApprovalScreen(ProjectApprovalScreen):
    """A project's Claude Code hooks and the settings that loosen pleat."""


class PluginApprovalScreen(ProjectApprovalScreen):
    """An enabled plugin's hooks and MCP servers."""


# The screen of each kind of question (agent/session/project_questions.py ProjectQuestion.kind).
SCREENS: dict[str, type[ProjectApprovalScreen]] = {
    "mcp": McpApprovalScreen,
    "hooks": HookApprovalScreen,
    "plugin": PluginApprovalScreen,
}


def approval_screen(question: ProjectQuestion) -> ProjectApprovalScreen:
    """The modal that asks `question`."""
    return SCREENS.get(question.kind, ProjectApprovalScreen)(question)
