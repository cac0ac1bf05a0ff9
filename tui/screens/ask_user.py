"""The model's question (ask_user): its options on keys 1 to 6, or an answer typed in."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from agent.terminal_text import visible
from tools.ask_user import MAX_OPTIONS, Question, Reply
from tui.screens.question import QuestionScreen


class AskUserScreen(QuestionScreen[Reply | None]):
    """Shows the question and its options; dismisses with the option picked (a key or a click),
    the text typed (Enter in the field), or None (Esc: no answer)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, MAX_OPTIONS + 1)),
        Binding("escape", "dismiss_question", "No answer", show=False),
    ]
    # Focus starts on the first option: the keys 1 to 6 work at once (the app drops keys until
    # the typing of the prompt has stopped: tui/screens/question.py).
    AUTO_FOCUS = "#option-1"

    def __init__(self, question: Question) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-user"):
            yield Label("The model asks", id="ask-user-title")
            with VerticalScroll(id="ask-user-question"):
                yield Static(visible(self.question.text), markup=False)
            for number, option in enumerate(self.question.options, start=1):
                # Content: the option's text as it is, never read as markup (a "[/bold]" in
                # it broke the screen, a "[#000 on #000]" hid part of it).
                label = Content(f"{number}. {visible(option)}")
                yield Button(label, id=f"option-{number}")
            yield Input(
                placeholder="Or type your answer (Enter sends it)",
                id="ask-user-answer",
                select_on_focus=False,  # a letter typed on an option starts the answer
            )
            yield Label(
                "1-6 picks an option · typing starts your own answer · Esc: no answer",
                id="ask-user-keys",
            )

    def on_key(self, event: events.Key) -> None:
        """A letter typed with an option focused starts the typed answer (digits pick)."""
        field = self.query_one(Input)
        character = event.character
        if self.focused is field or not event.is_printable or character is None:
            return
        if character.isdigit() and character != "0":
            return  # the bindings pick the option
        event.stop()
        event.prevent_default()
        field.focus()
        field.insert_text_at_cursor(character)

    def action_pick(self, index: int) -> None:
        if 0 <= index < len(self.question.options):
            self.dismiss(Reply(self.question.options[index], option=index))

    def action_dismiss_question(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(Reply(event.value))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        number = (event.button.id or "").removeprefix("option-")
        if number.isdigit():
            self.action_pick(int(number) - 1)
