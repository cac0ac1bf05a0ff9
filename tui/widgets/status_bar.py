"""The one-line status bar: model, workspace, what the agent is doing, token usage."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static

from agent.events import Usage

# Separates the fields of the status line.
SEPARATOR = "  ·  "


class StatusBar(Static):
    """Shows the session's state; the app sets the reactive fields."""

    model: reactive[str] = reactive("")
    workspace: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")
    usage: reactive[Usage | None] = reactive(None)

    def __init__(self, model: str, workspace: str) -> None:
        super().__init__(markup=False)
        self.set_reactive(StatusBar.model, model)
        self.set_reactive(StatusBar.workspace, workspace)

    def on_mount(self) -> None:
        self._refresh_line()

    def watch_model(self) -> None:
        self._refresh_line()

    def watch_workspace(self) -> None:
        self._refresh_line()

    def watch_state(self) -> None:
        self._refresh_line()

    def watch_usage(self) -> None:
        self._refresh_line()

    @property
    def line(self) -> str:
        """The text the bar shows."""
        fields = [self.model or "no model", self.workspace, self.state]
        if self.usage is not None:
            fields.append(
                f"{self.usage.prompt_tokens:,} prompt tokens, {self.usage.cached_tokens:,} cached"
            )
        return SEPARATOR.join(fields)

    def _refresh_line(self) -> None:
        self.update(self.line)
