"""/memory's screens: the instruction files in use and the auto memory, one opened in the editor;
a `#` note asked."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList, Static
from textual.widgets.option_list import Option

from agent.terminal_text import visible
from tui.external_editor import EditorError, editor_command
from tui.screens.question import QuestionScreen
from tui.screens.styles import SCREENS_CSS

# What a `#` note's question answers: add it to the file, send the text as a prompt after all
# (a Markdown heading typed as a prompt starts with # too), or neither.
NoteAnswer = str
ADD, PROMPT, CANCEL = "add", "prompt", "cancel"


@dataclass(frozen=True)
class MemoryFile:
    """One instruction file /memory offers: what it is, where, and whether it is there yet."""

    kind: str  # "user", "project", "local", "imported", "nested" or "auto"
    name: str  # as shown: the path, workspace-relative for the project's files
    path: Path
    exists: bool


def file_row(file: MemoryFile) -> str:
    """One line of the list: kind, name, and when missing, that Enter creates it."""
    missing = "" if file.exists else "  (none yet: Enter creates it)"
    return visible(f"{file.kind:<8} {file.name}{missing}")


def run_editor(suspend: Callable[[], AbstractContextManager[None]], path: Path) -> str:
    """Edit `path` in $VISUAL/$EDITOR with the terminal handed over; what happened, in one line.
    The editor writes the file itself: if it fails, the file is as the editor left it."""
    try:
        argv = editor_command(os.environ)
        with suspend():  # the app hands the terminal to the editor (App.suspend)
            status = subprocess.run([*argv, str(path)], check=False).returncode
    except EditorError as error:
        return str(error)
    except SuspendNotSupported:
        return f"this terminal cannot be handed to an editor: edit {path} yourself"
    except OSError as error:
        return f"cannot run the editor: {error.strerror or error}"
    if status != 0:
        return f"the editor exited with status {status}"
    return f"edited {path.name}: new sessions read it; this one keeps what it was given"


class MemoryScreen(ModalScreen[None]):
    """The instruction files in use, then the auto memory's file and what a new session loads of
    it; Enter opens the highlighted file in the user's editor."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(
        self, files: list[MemoryFile], notes: list[str], auto_memory: str | None = None
    ) -> None:
        super().__init__()
        self.files = files
        self.notes = notes  # why files were skipped
        self.auto_memory = auto_memory  # what a new session loads of it; None: it is off

    def compose(self) -> ComposeResult:
        with Vertical(id="memory"):
            yield Label(
                "Instruction files (Enter opens one in $VISUAL/$EDITOR, Escape closes)",
                id="memory-title",
            )
            yield OptionList(
                *(Option(file_row(f), id=str(n)) for n, f in enumerate(self.files)),
                id="memory-list",
                markup=False,
            )
            if self.auto_memory is not None:
                yield Label(
                    "Auto memory (the model's own notes for this workspace, as new sessions load "
                    "them; the auto row opens the file)",
                    id="memory-auto-title",
                    markup=False,
                )
                with VerticalScroll(id="memory-auto"):
                    yield Static(visible(self.auto_memory), markup=False)
            notes = "\n".join(visible(note) for note in self.notes)
            yield Static(notes, id="memory-status", markup=False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = self.files[int(event.option.id or 0)]
        said = run_editor(self.app.suspend, chosen.path)
        self.query_one("#memory-status", Static).update(visible(said))

    def action_close(self) -> None:
        self.dismiss(None)


class NoteScreen(QuestionScreen[NoteAnswer]):
    """Asks whether a `#` prompt's note goes into the project's file."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('add')", "Add it"),
        Binding("p", "answer('prompt')", "Send as a prompt"),
        Binding("n", "answer('cancel')", "No"),
        Binding("escape", "answer('cancel')", "No", show=False),
    ]
    # Enter on the focused button must never write by accident: start on "No".
    AUTO_FOCUS = "#cancel"

    def __init__(self, target: str, note: str) -> None:
        super().__init__()
        self.target = target
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="approval"):
            yield Label(f"Add this to {visible(self.target)}?", id="approval-title", markup=False)
            with VerticalScroll(id="approval-preview"):
                yield Static(visible(self.note), markup=False, classes="preview")
            with Horizontal(id="approval-buttons"):
                yield Button("Add (y)", id=ADD, variant="success")
                yield Button("Send as a prompt (p)", id=PROMPT)
                yield Button("No (n)", id=CANCEL, variant="error")

    def action_answer(self, answer: NoteAnswer) -> None:
        self.dismiss(answer)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or CANCEL)
