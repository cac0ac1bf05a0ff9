"""The status line: model, session, workspace, goal, activity, permission mode, sandbox,
context meter, cache, cost, folding."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from textual.reactive import reactive
from textual.widgets import Static

from agent.compaction.fold_line import kilo
from agent.terminal_text import visible

if TYPE_CHECKING:
    from agent.slash.context_report import ContextGauge
    from sessions.usage import Usage

# Separates the fields of the status line.
SEPARATOR = " · "
# Characters of the goal the line shows (its first line): enough to recognise it; /goal shows
# it whole.
GOAL_CHARS = 40
# Cells of the context meter: ten make each cell a tenth of the window, readable at a glance.
METER_CELLS = 10
# The meter's cells (used, free) and the mark where automatic compaction starts.
USED_CELL, FREE_CELL, TRIGGER_MARK = "▰", "▱", "│"

# Compaction as the status shows it: nothing happening, folding now, folding in the background
# while the turn goes on, or paused (a fold freed too little, so automatic folding waits until
# the context has grown again).
FoldStatus = Literal["idle", "running", "background", "paused"]


def meter(gauge: ContextGauge) -> str:
    """e.g. `ctx ▰▰▰▰▰▰▱▱│▱▱ 61% 9.8k/16.0k`: the share of the window the next request uses,
    with the threshold marked."""
    window = max(1, gauge.window)
    used_cells = min(METER_CELLS, round(gauge.used / window * METER_CELLS))
    mark = min(METER_CELLS, round(gauge.trigger / window * METER_CELLS))
    cells = [USED_CELL if i < used_cells else FREE_CELL for i in range(METER_CELLS)]
    cells.insert(mark, TRIGGER_MARK)
    share = gauge.used / window
    return f"ctx {''.join(cells)} {share:.0%} {kilo(gauge.used)}/{kilo(gauge.window)}"


def short_goal(goal: str) -> str:
    """The goal's first line, cut to GOAL_CHARS."""
    line = goal.strip().splitlines()[0] if goal.strip() else ""
    return line if len(line) <= GOAL_CHARS else line[: GOAL_CHARS - 1] + "…"


class StatusBar(Static):
    """Shows the session's state; the app sets the reactive fields."""

    model: reactive[str] = reactive("")
    session: reactive[str] = reactive("")
    workspace: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")
    mode: reactive[str] = reactive("ask")  # the permission mode (agent/permissions/policy.py)
    usage: reactive[Usage | None] = reactive(None)  # of the last model call
    cost: reactive[float | None] = reactive(None)  # USD of the session's calls, folds included
    # The spending cap (--max-budget-usd) and the session's cost when it started counting.
    cap: reactive[tuple[float, float] | None] = reactive(None)
    context: reactive[ContextGauge | None] = reactive(None)
    folding: reactive[FoldStatus] = reactive("idle")
    goal: reactive[str] = reactive("")  # the session's goal (/goal); "" when there is none
    sandbox: reactive[str] = reactive("")  # where commands run (Sandbox.label); "" unknown yet

    def __init__(self, model: str, workspace: str) -> None:
        super().__init__(markup=False)
        self.set_reactive(StatusBar.model, model)
        self.set_reactive(StatusBar.workspace, workspace)

    def on_mount(self) -> None:
        self._refresh_line()

    def watch_model(self) -> None:
        self._refresh_line()

    def watch_session(self) -> None:
        self._refresh_line()

    def watch_workspace(self) -> None:
        self._refresh_line()

    def watch_state(self) -> None:
        self._refresh_line()

    def watch_mode(self) -> None:
        self._refresh_line()

    def watch_usage(self) -> None:
        self._refresh_line()

    def watch_cost(self) -> None:
        self._refresh_line()

    def watch_cap(self) -> None:
        self._refresh_line()

    def watch_context(self) -> None:
        self._refresh_line()

    def watch_folding(self) -> None:
        self._refresh_line()

    def watch_goal(self) -> None:
        self._refresh_line()

    def watch_sandbox(self) -> None:
        self._refresh_line()

    @property
    def line(self) -> str:
        """The text the bar shows."""
        fields = [self.model or "no model"]
        if self.session:
            fields.append(self.session)
        fields.append(self.workspace)
        if self.goal:
            fields.append(f"goal: {short_goal(self.goal)}")
        fields += [self.state, f"{self.mode} mode"]
        if self.sandbox:
            fields.append(f"sandbox {self.sandbox}")
        if self.context is not None:
            fields.append(meter(self.context))
        usage = self.usage
        if usage is not None and usage.prompt_tokens:
            fields.append(f"cache {usage.cached_tokens / usage.prompt_tokens:.0%}")
        if self.cap is not None:
            limit, start = self.cap
            fields.append(f"${(self.cost or 0.0) - start:.4f} of ${limit:.2f} cap")
        elif self.cost is not None:
            fields.append(f"${self.cost:.4f}")
        fields.append(f"fold {self.folding}")
        return SEPARATOR.join(fields)

    def _refresh_line(self) -> None:
        self.update(visible(self.line))


def display_path(path: Path) -> str:
    """The workspace as the user thinks of it: ~ for the home directory."""
    try:
        relative = path.relative_to(Path.home())
    except ValueError:
        return str(path)
    return "~" if relative == Path() else f"~/{relative}"
