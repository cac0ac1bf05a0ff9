"""/context: what fills the context window, as the compactor counts it, against the window."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from agent.slash.context_report import ContextReport
from tui.screens.styles import SCREENS_CSS
from tui.widgets.context_chart import calls_chart

# What the figures mean, under the table.
EXPLANATION = (
    "Counted: tiktoken counts of each part. Next request: the provider's last reported prompt "
    "tokens plus what was added since (what the fold threshold is compared with)."
)


def rows(report: ContextReport) -> list[tuple[str, int, str]]:
    """(what, tokens, share of the window) rows of the table."""
    window = max(1, report.window)

    def row(label: str, tokens: int) -> tuple[str, int, str]:
        return (label, tokens, f"{tokens / window:.1%}")

    return [
        row("system prompt", report.system_tokens),
        row("tool schemas", report.tools_tokens),
        row("summary message", report.summary_tokens),
        row(f"messages ({report.messages})", report.message_tokens),
        row("counted total", report.counted),
        row("next request", report.size),
        row("fold threshold", report.trigger),
        row("reserved for the reply", report.reserved_output),
        row("window", report.window),
    ]


def state_line(report: ContextReport) -> str:
    chunks = f"{report.chunks} chunk{'s' if report.chunks != 1 else ''} archived"
    if report.suspended_below is not None:
        return (
            f"{chunks} · automatic compaction paused until the context reaches "
            f"{report.suspended_below:,} tokens (the last fold freed too little)"
        )
    left = report.trigger - report.size
    when = f"folds in about {left:,} tokens" if left > 0 else "folds before the next call"
    return f"{chunks} · {when}"


def billing_line(report: ContextReport) -> str:
    """The session's calls as the provider bills them: every call, compression included."""
    usage = report.usage
    if not usage.calls:
        return "no model calls yet in this session"
    calls = f"{usage.calls:,} call{'s' if usage.calls != 1 else ''}"
    if usage.compression_calls:
        calls += f" ({usage.compression_calls:,} for folds)"
    cached = usage.cached_tokens / usage.prompt_tokens if usage.prompt_tokens else 0.0
    line = f"{calls} · input {usage.prompt_tokens:,} tokens, {cached:.0%} from cache"
    if usage.cache_creation_tokens:
        line += f", {usage.cache_creation_tokens:,} written to it"
    line += f" · output {usage.completion_tokens:,}"
    if usage.cost is not None:
        line += f" · ${usage.cost:.4f}"
    return line


class ContextScreen(ModalScreen[None]):
    """The breakdown of one moment's context; Escape closes it."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, report: ContextReport) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        # Scrolls when the chart makes it taller than the terminal; the keys reach it through
        # the table, which keeps the focus (as before the chart, so the view looks the same).
        with VerticalScroll(id="context", can_focus=False):
            yield Label("Context window", id="context-title")
            table: DataTable[str | Text] = DataTable(
                id="context-table", cursor_type="none", zebra_stripes=True
            )
            table.add_column("part", key="part")
            table.add_column("tokens", key="tokens")
            table.add_column("of window", key="share")
            for label, tokens, share in rows(self.report):
                number = Text(f"{tokens:,}", justify="right")
                table.add_row(label, number, Text(share, justify="right"), key=label)
            yield table
            yield Static(state_line(self.report), id="context-state", markup=False)
            yield from calls_chart(self.report)
            yield Static(billing_line(self.report), id="context-billing", markup=False)
            yield Static(EXPLANATION, id="context-note", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
