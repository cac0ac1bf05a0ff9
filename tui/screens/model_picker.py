"""/model: the models pleat can use, grouped by provider and server, the current one marked,
filtered as you type; Enter switches, Ctrl+S switches and saves the choice as the default."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from agent.model.discovery import FoundModel, same_model
from agent.terminal_text import visible
from tui.screens.styles import SCREENS_CSS

# What the picker dismisses with: the chosen model, and whether to save it as the default.
Picked = tuple[FoundModel, bool]
# The line under the list while the servers are asked and litellm's lists read.
LOOKING = "looking for models (provider keys, local servers)…"
# The keys, said under the filter once the models are listed.
KEYS = "Enter switches · Ctrl+S switches and saves as the default · Esc closes"
# The heading of the current model when no provider or server lists it.
CURRENT_GROUP = "current"
# The mark before the current model.
CURRENT_MARK = "● "


def matches(model: FoundModel, words: list[str]) -> bool:
    """Every word of the filter is in the model's name or its heading (any case)."""
    text = f"{model.name} {model.group}".lower()
    return all(word in text for word in words)


class ModelPickerScreen(ModalScreen[Picked | None]):
    """Lists what `load` finds (the current model marked, and listed first under "current"
    when nothing found lists it); dismisses with the
    chosen model and whether to save it, or None (Escape)."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+s", "choose(True)", "Switch and save", priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
    ]

    def __init__(
        self, current: FoundModel | None, load: Callable[[], Awaitable[list[FoundModel]]]
    ) -> None:
        super().__init__()
        self.current = current
        self.load = load
        self.models: list[FoundModel] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        with Vertical(id="model-picker"):
            name = visible(self.current.name) if self.current else "none"
            yield Label(f"Models (now: {name})", id="model-picker-title")
            yield Input(placeholder="type to filter", id="model-filter")
            yield Label(LOOKING, id="model-picker-state")  # above the list: never cut off
            yield OptionList(id="model-list", markup=False)  # names come from servers

    def on_mount(self) -> None:
        self.query_one("#model-filter", Input).focus()
        self.run_worker(self._fill(), exclusive=True)

    async def _fill(self) -> None:
        try:
            found = await self.load()
        except Exception as error:  # a bug in discovery: the picker still names the current
            self.log.error(error)
            found = []
        listed = any(same_model(m, self.current) for m in found)
        current = [self.current] if self.current is not None and not listed else []
        self.models = [
            *(FoundModel(m.name, m.api_base, m.source, CURRENT_GROUP) for m in current),
            *found,
        ]
        self.loaded = True
        self.refill()

    def refill(self) -> None:
        """Show the models that match the filter, under their headings."""
        words = self.query_one("#model-filter", Input).value.lower().split()
        options: list[Option] = []
        heading = None
        highlight: int | None = None
        for index, model in enumerate(self.models):
            if not matches(model, words):
                continue
            if model.group != heading:
                heading = model.group
                keyed = model.api_base is None and model.group != CURRENT_GROUP
                why = f" ({model.source})" if keyed else ""  # which key made it available
                options.append(Option(visible(f"── {heading}{why}"), disabled=True))
            mark = CURRENT_MARK if same_model(model, self.current) else "  "
            if highlight is None or mark == CURRENT_MARK:  # the current one, else the first
                highlight = len(options)
            options.append(Option(visible(f"{mark}{model.name}"), id=str(index)))
        listing = self.query_one("#model-list", OptionList)
        listing.clear_options()
        listing.add_options(options)
        if highlight is not None:
            listing.highlighted = highlight
        shown = sum(1 for o in options if o.id is not None)
        state = self.query_one("#model-picker-state", Label)
        if not self.loaded:
            state.update(LOOKING)
        elif not self.models:
            state.update(
                "no models found: set a provider key or start a local server "
                "(docs/CONFIGURATION.md); /model NAME names any model · Esc closes"
            )
        else:
            state.update(f"{shown} of {len(self.models)} models · {KEYS}")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.loaded:
            self.refill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_choose(False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss((self.models[int(event.option.id)], False))

    def action_move(self, step: int) -> None:
        listing = self.query_one("#model-list", OptionList)
        if step < 0:
            listing.action_cursor_up()
        else:
            listing.action_cursor_down()

    def action_choose(self, save: bool) -> None:
        """Dismiss with the highlighted model (nothing highlighted: stay open)."""
        listing = self.query_one("#model-list", OptionList)
        if listing.highlighted is None:
            return
        option = listing.get_option_at_index(listing.highlighted)
        if option.id is not None:
            self.dismiss((self.models[int(option.id)], save))

    def action_close(self) -> None:
        self.dismiss(None)
