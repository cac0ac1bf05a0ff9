"""The plan review: the model's plan (exit_plan_mode), accepted or sent back with feedback."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Markdown

from agent.permissions.plan_mode import PlanVerdict
from agent.terminal_text import visible
from tui.screens.question import QuestionScreen


class PlanScreen(QuestionScreen[PlanVerdict]):
    """Shows a plan; dismisses with accepted (plan mode ends: accept-edits) or keep planning
    (with the feedback typed, if any)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "accept", "Accept the plan"),
        Binding("n", "keep_planning", "Keep planning"),
        Binding("escape", "keep_planning", "Keep planning", show=False),
    ]
    # Enter on the focused button must never accept by accident: start on "Keep planning".
    AUTO_FOCUS = "#keep"

    def __init__(self, plan: str) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        with Vertical(id="plan"):
            yield Label("The plan (pleat is in plan mode)", id="plan-title")
            with VerticalScroll(id="plan-body"):
                yield Markdown(visible(self.plan))
            yield Input(
                placeholder="Feedback to keep planning with (Enter sends it), optional",
                id="plan-feedback",
            )
            with Horizontal(id="plan-buttons"):
                yield Button("Accept: switch to accept-edits (y)", id="accept", variant="success")
                yield Button("Keep planning (n)", id="keep", variant="primary")

    def action_accept(self) -> None:
        self.dismiss(PlanVerdict("accepted"))

    def action_keep_planning(self) -> None:
        self.dismiss(PlanVerdict("keep_planning", self.query_one(Input).value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_keep_planning()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "accept":
            self.action_accept()
        elif event.button.id == "keep":
            self.action_keep_planning()
