"""The approval modal: what a tool is about to do, and y (yes) / n (no) / a (always: its rules)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from agent.permissions.policy import ApprovalRequest
from agent.session.asking import Answer
from agent.terminal_text import hidden_count, visible
from tui.screens.question import QuestionScreen
from tui.widgets.diff_view import DiffView

# Tools whose preview is a unified diff (the others show their preview as plain text).
DIFF_TOOLS = frozenset({"edit_file", "write_file"})
# The answer each button gives (the buttons' ids).
BUTTON_ANSWERS: dict[str, Answer] = {"yes": "yes", "no": "no", "always": "always"}


class ApprovalScreen(QuestionScreen[Answer]):
    """Asks whether one tool call may run; dismisses with the answer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('yes')", "Yes"),
        Binding("n", "answer('no')", "No"),
        Binding("a", "answer('always')", "Always (the rules shown)"),
        Binding("escape", "answer('no')", "No", show=False),
    ]
    # Enter on the focused button must never approve by accident: start on "No".
    AUTO_FOCUS = "#no"

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(id="approval"):
            yield Label(self._title(), id="approval-title", markup=False)
            if (warning := self._warning()) is not None:
                yield warning
            with VerticalScroll(id="approval-preview"):
                yield self._preview()
            yield Label(self._always_line(), id="approval-always", markup=False)
            with Horizontal(id="approval-buttons"):
                yield Button("Yes (y)", id="yes", variant="success")
                yield Button("No (n)", id="no", variant="error")
                if self.request.always:
                    yield Button("Always (a)", id="always")

    def _title(self) -> str:
        """What is asked, and by whom when it is a sub-agent (its task's description)."""
        title = f"Allow {visible(self.request.tool)}?"
        if self.request.outside_sandbox:  # the sandbox would have run it: this is the question
            title = f"Allow {visible(self.request.tool)} OUTSIDE the sandbox, with all your rights?"
        if self.request.asker:
            title += f"  (asked by the sub-agent of the task “{visible(self.request.asker)}”)"
        if self.request.hook_asked:  # the mode would have run it: say who wants a yes
            why = f": {visible(self.request.hook_reason)}" if self.request.hook_reason else ""
            title += f"  (a PreToolUse hook asks{why})"
        return title

    def _always_line(self) -> str:
        """What "always" would allow until the session ends, or why it is not offered."""
        if not self.request.always:
            return (
                "No rule can cover this command (it has a substitution, a redirection to a "
                "file, a subshell or a control character), so it is asked every time."
            )
        if self.request.outside_sandbox:
            return "Always (a) runs this exact command outside the sandbox until this session ends"
        rules = ", ".join(visible(rule) for rule in self.request.always)
        return f"Always (a) allows, until this session ends: {rules}"

    def _preview(self) -> Static:
        """The whole preview (it scrolls), every control character shown as its escape, so
        what is read is the exact text that will run (agent/terminal_text.py)."""
        preview = visible(self.request.preview)
        if self.request.tool in DIFF_TOOLS and preview.startswith("---"):
            return DiffView(preview, classes="preview")
        if self.request.tool == "run_command":
            return Static(f"$ {preview}", markup=False, classes="preview command")
        return Static(preview, markup=False, classes="preview")

    def _warning(self) -> Label | None:
        """A line that says the preview holds control characters (made visible), which a
        terminal would otherwise use to hide or rewrite part of what runs."""
        count = hidden_count(self.request.preview)
        if not count:
            return None
        return Label(
            f"⚠ {count} control character{'s' if count > 1 else ''} (escape sequences, "
            "carriage returns, direction overrides) shown as \\xNN / \\uNNNN: read them "
            "before you allow this",
            id="approval-warning",
            markup=False,
        )

    def action_answer(self, answer: Answer) -> None:
        if answer == "always" and not self.request.always:
            return  # not offered for this call
        self.dismiss(answer)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        answer = BUTTON_ANSWERS.get(event.button.id or "")
        if answer is not None:
            self.dismiss(answer)
