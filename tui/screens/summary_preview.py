"""/compact --preview: the summary a fold would apply, accepted, edited first, or discarded."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, TextArea

from agent.terminal_text import visible
from tui.external_editor import EditorError, edit_externally
from tui.screens.question import QuestionScreen

PREVIEW_CSS = """
SummaryPreviewScreen {
    align: center middle;
}
#summary-preview {
    width: 95%;
    height: 90%;
    padding: 1 2;
    border: thick $accent;
    background: $surface;
}
#summary-preview-title {
    width: 100%;
    text-style: bold;
    margin: 0 0 1 0;
}
#summary-text {
    height: 1fr;
}
#summary-buttons {
    height: auto;
    margin: 1 0 0 0;
    align-horizontal: right;
}
#summary-buttons Button {
    margin: 0 0 0 2;
}
"""
# The line above the summary.
TITLE = (
    "The summary this fold would apply. Edit it here or in your editor, then accept it "
    "(Ctrl+S); discard it (Escape) and nothing is archived, the conversation stays as it is."
)


class SummaryPreviewScreen(QuestionScreen[str | None]):
    """Shows the model's summary in an editor; dismisses with the summary to apply (as it
    stands, or as edited here or in $VISUAL/$EDITOR), or None (discarded)."""

    DEFAULT_CSS = PREVIEW_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "accept", "Accept"),
        Binding("ctrl+g", "editor", "Edit in $VISUAL/$EDITOR"),
        Binding("escape", "discard", "Discard"),
    ]
    AUTO_FOCUS = "#summary-text"

    def __init__(self, summary: str) -> None:
        super().__init__()
        self.summary = summary
        # What the editor shows: the model's text with its control characters made visible.
        self.shown = visible(summary)

    def compose(self) -> ComposeResult:
        with Vertical(id="summary-preview"):
            yield Label(TITLE, id="summary-preview-title", markup=False)
            yield TextArea(self.shown, id="summary-text", soft_wrap=True)
            with Horizontal(id="summary-buttons"):
                yield Button("Accept (ctrl+s)", id="summary-accept", variant="success")
                yield Button("Edit in $EDITOR (ctrl+g)", id="summary-editor")
                yield Button("Discard (esc)", id="summary-discard", variant="error")

    @property
    def text_area(self) -> TextArea:
        return self.query_one("#summary-text", TextArea)

    def action_accept(self) -> None:
        """The summary as it stands: the model's own when it was not changed."""
        text = self.text_area.text
        self.dismiss(self.summary if text == self.shown else text)

    def action_discard(self) -> None:
        self.dismiss(None)

    def action_editor(self) -> None:
        """The text in the user's editor (the app hands it the terminal); if the editor fails,
        the text here stays as it was, and a line says why."""
        try:
            edited = edit_externally(self.text_area.text, self.app.suspend)
        except EditorError as error:
            self.notify(visible(str(error)), severity="error", markup=False)
            return
        self.text_area.text = visible(edited)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "summary-accept": self.action_accept,
            "summary-editor": self.action_editor,
            "summary-discard": self.action_discard,
        }
        actions.get(event.button.id or "", self.action_discard)()
