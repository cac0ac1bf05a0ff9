"""/rewind's screens: the turns to go back to, what to rewind (or fold up to there), and files
changed since pleat."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList, SelectionList
from textual.widgets.option_list import Option

from agent.conversation.rewind_plan import turn_label
from agent.terminal_text import visible
from sessions.lineage import Scope, Turn
from tui.screens.question import QuestionScreen
from tui.screens.styles import SCREENS_CSS

# The panels look like /sessions' (tui/screens/screens.tcss): centred, bordered, sized to fit.
PANEL_CSS = """
RewindScreen, RewindScopeScreen, ChangedFilesScreen {
    align: center middle;
}
.rewind-panel {
    width: 90%;
    max-width: 100;
    height: auto;
    max-height: 90%;
    padding: 1 2;
    border: thick $accent;
    background: $surface;
}
.rewind-title {
    width: 100%;
    text-style: bold;
    margin: 0 0 1 0;
}
.rewind-text {
    width: 100%;
}
.rewind-list {
    height: auto;
    max-height: 20;
}
.rewind-buttons {
    height: auto;
    margin: 1 0 0 0;
    align-horizontal: right;
}
.rewind-buttons Button {
    margin: 0 0 0 2;
}
"""
# The answer each scope button gives (the buttons' ids).
# (Prefixed: `#conversation` is the app's conversation view, styled by tui/pleat.tcss.)
# "fold": nothing is rewound; the requests before the turn are folded, the rest stay verbatim.
RewindChoice = Scope | Literal["fold"]
SCOPE_BUTTONS: dict[str, RewindChoice] = {
    "scope-both": "both",
    "scope-conversation": "conversation",
    "scope-files": "files",
    "scope-fold": "fold",
}


class RewindScreen(ModalScreen[int | None]):
    """The user turns of the conversation, folded ones included; dismisses with the chosen
    turn's number (1 = the first), or None (Escape)."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    DEFAULT_CSS = PANEL_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, turns: list[Turn]) -> None:
        super().__init__()
        self.turns = turns

    def compose(self) -> ComposeResult:
        with Vertical(classes="rewind-panel"):
            yield Label(
                "Rewind to before which request? (Enter chooses, Escape closes)",
                classes="rewind-title",
            )
            yield OptionList(
                *(
                    Option(visible(turn_label(number, turn)), id=str(number))
                    for number, turn in enumerate(self.turns, 1)
                ),
                classes="rewind-list",
                markup=False,  # a prompt's "[/]" is text, not markup (nor a crash)
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = len(self.turns) - 1  # the latest: the usual choice

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or "0") or None)

    def action_close(self) -> None:
        self.dismiss(None)


class RewindScopeScreen(ModalScreen[RewindChoice | None]):
    """What to take back to before the turn: files and conversation, one of them, or nothing
    (Escape); or to fold the conversation up to the turn instead ("fold up to here")."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    DEFAULT_CSS = PANEL_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "choose('both')", "Both"),
        Binding("c", "choose('conversation')", "Conversation"),
        Binding("f", "choose('files')", "Files"),
        Binding("s", "choose('fold')", "Fold up to here"),
        Binding("escape", "close", "Cancel"),
    ]

    def __init__(self, number: int, turn: Turn) -> None:
        super().__init__()
        self.number = number
        self.turn = turn

    def compose(self) -> ComposeResult:
        with Vertical(classes="rewind-panel"):
            yield Label(
                f"Rewind to before {visible(turn_label(self.number, self.turn))}",
                classes="rewind-title",
                markup=False,
            )
            yield Label(
                "Files: every change pleat made from this request on is undone. Conversation: "
                "the request and everything after it leave the conversation, and the request "
                "comes back into the prompt. Fold up to here: nothing is undone; the requests "
                "before this one are folded into a summary, this one and the rest stay word "
                "for word.",
                classes="rewind-text",
                markup=False,
            )
            with Horizontal(classes="rewind-buttons"):
                yield Button("Both (b)", id="scope-both", variant="primary")
                yield Button("Conversation (c)", id="scope-conversation")
                yield Button("Files (f)", id="scope-files")
                yield Button("Fold up to here (s)", id="scope-fold")
                yield Button("Cancel (esc)", id="scope-cancel")

    def action_choose(self, choice: RewindChoice) -> None:
        self.dismiss(choice)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(SCOPE_BUTTONS.get(event.button.id or ""))


class ChangedFilesScreen(QuestionScreen[list[str] | None]):
    """Files changed since pleat wrote them: the checked ones are put back all the same (their
    new changes lost), the others keep what is there now. Dismisses with the files to put
    back, or None (Escape: no rewind at all)."""

    DEFAULT_CSS = PANEL_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rewind", "Rewind"),
        Binding("a", "all", "Check all"),
        Binding("escape", "close", "Cancel"),
    ]
    # Enter on the focused button must never overwrite by accident: start on the list.
    AUTO_FOCUS = "SelectionList"

    def __init__(self, paths: list[str]) -> None:
        super().__init__()
        self.paths = paths

    def compose(self) -> ComposeResult:
        with Vertical(classes="rewind-panel"):
            yield Label(
                "These files changed after pleat wrote them. Checked files are put back "
                "anyway (those changes are lost); unchecked ones keep what is there now.",
                classes="rewind-title",
                markup=False,
            )
            yield SelectionList[str](
                *((Content(visible(path)), path, False) for path in self.paths),
                classes="rewind-list",
            )
            with Horizontal(classes="rewind-buttons"):
                yield Button("Rewind (r)", id="changed-rewind", variant="primary")
                yield Button("Cancel (esc)", id="changed-cancel")

    def action_rewind(self) -> None:
        self.dismiss(list(self.query_one(SelectionList).selected))

    def action_all(self) -> None:
        self.query_one(SelectionList).select_all()

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "changed-rewind":
            self.action_rewind()
        else:
            self.dismiss(None)
