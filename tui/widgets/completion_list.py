"""The suggestion list above the prompt: slash commands or workspace files, never focused."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from agent.commands.completion import Completion, Suggestion
from agent.terminal_text import visible


class CompletionList(OptionList, can_focus=False):
    """Shows one Completion; the prompt moves the highlight and takes the chosen suggestion."""

    def __init__(self) -> None:
        super().__init__(id="completions")
        self.completion: Completion | None = None
        self.display = False

    def show(self, completion: Completion | None) -> None:
        """Offer these suggestions (None hides the list); the same ones again keep their
        highlight."""
        if completion is not None and completion == self.completion:
            return
        self.completion = completion
        if completion is None:
            self.display = False
            self.clear_options()
            return
        self.set_options(Option(Content(visible(s.label))) for s in completion.suggestions)
        self.highlighted = 0
        self.display = True

    @property
    def showing(self) -> bool:
        """A completion is offered (not Textual's `visible`, which this must not shadow)."""
        return self.completion is not None

    def move(self, step: int) -> None:
        if step < 0:
            self.action_cursor_up()
        else:
            self.action_cursor_down()

    @property
    def chosen(self) -> Suggestion | None:
        if self.completion is None or self.highlighted is None:
            return None
        return self.completion.suggestions[self.highlighted]
