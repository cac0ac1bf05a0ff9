"""/context's chart: the prompt tokens of each model call, the fold threshold, each fold."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from agent.slash.context_report import ContextReport
from sessions.call_history import CallHistory

if TYPE_CHECKING:
    from textual_plotext.plot import Plot

# The chart's height in rows: enough to tell a fold's drop from noise, small enough that the
# table above it still shows in a 30-row terminal (the panel scrolls for the rest).
CHART_ROWS = 12
# At most this many calls are drawn; past that each point stands for the largest of a run of
# calls. Braille draws two points a column, so 400 fill a 200-column terminal.
CHART_POINTS = 400
# Labelled call numbers under the chart, the first and the last included.
CHART_X_TICKS = 5
# The highest call's size is labelled on the axis only this far (a share of the axis) from the
# threshold's label: closer, the two would fall on one row of ten and one would hide the other.
CHART_LABEL_GAP = 0.1
# Where the fold marks sit: this far above the highest of the calls and the threshold, so
# they are never on top of the line.
CHART_HEADROOM = 1.15
# The calls, the fold threshold, the folds, as RGB: the terminal theme cannot remap them, so
# the key above the chart shows the same colours; each reads on dark and light backgrounds.
CALLS_COLOR = (0, 175, 215)
THRESHOLD_COLOR = (215, 0, 0)
FOLD_COLOR = (255, 135, 0)
THRESHOLD_MARK, FOLD_MARK = "─", "▼"


def _style(rgb: tuple[int, int, int]) -> str:
    return "rgb({},{},{})".format(*rgb)


def chart_caption(calls: CallHistory, trigger: int) -> Text:
    """The chart's title and key: how many calls, the threshold line, the fold marks."""
    count = len(calls.calls)
    caption = Text(f"Prompt tokens per model call ({count:,} call{'s' * (count != 1)}")
    if count > CHART_POINTS:
        caption.append(f"; each point the largest of about {count // CHART_POINTS} calls")
    caption.append(") · ")
    caption.append(THRESHOLD_MARK * 2, style=_style(THRESHOLD_COLOR))
    caption.append(f" fold threshold {trigger:,} · ")
    caption.append(FOLD_MARK, style=_style(FOLD_COLOR))
    folds = len(calls.folds)
    caption.append(f" fold{'s' * (folds != 1)} ({folds:,})")
    return caption


def x_ticks(count: int) -> list[int]:
    """CHART_X_TICKS call numbers from the first to the last, without repeats."""
    steps = max(1, CHART_X_TICKS - 1)
    return sorted({1 + (count - 1) * step // steps for step in range(steps + 1)})


def draw_calls(plt: Plot, calls: CallHistory, trigger: int) -> None:
    """The context per call as a line, the fold threshold across it, a mark above each fold."""
    points = calls.points(CHART_POINTS)
    xs, ys = [x for x, _ in points], [y for _, y in points]
    if len(points) > 1:
        plt.plot(xs, ys, marker="braille", color=CALLS_COLOR)
    else:
        plt.scatter(xs, ys, marker="●", color=CALLS_COLOR)
    top = max(*ys, trigger) * CHART_HEADROOM
    plt.hline(trigger, THRESHOLD_COLOR)
    if calls.folds:
        folds = [fold + 0.5 for fold in calls.folds]  # between the calls before and after it
        plt.scatter(folds, [top] * len(folds), marker=FOLD_MARK, color=FOLD_COLOR)
    count = len(calls.calls)
    plt.xlim(0.5, count + 0.5)
    plt.ylim(0, top)
    ticks = x_ticks(count)
    plt.xticks([float(tick) for tick in ticks], [f"{tick:,}" for tick in ticks])
    levels = [0, trigger]
    if abs(max(ys) - trigger) > top * CHART_LABEL_GAP:
        levels.append(max(ys))
    plt.yticks([float(level) for level in levels], [f"{level:,}" for level in levels])


def calls_chart(report: ContextReport) -> list[Widget]:
    """The chart's widgets: none without a journal, a line of text before the first call."""
    calls = report.calls
    if calls is None:
        return []
    if not calls.calls:
        empty = "No model calls yet: the chart of the context per call starts with the first."
        return [Static(empty, id="context-chart-empty", markup=False)]
    from textual_plotext import PlotextPlot  # only when a chart is drawn: plotext is heavy

    chart = PlotextPlot(id="context-chart")
    chart.styles.height = CHART_ROWS
    draw_calls(chart.plt, calls, report.trigger)
    caption = Static(chart_caption(calls, report.trigger), id="context-chart-caption")
    caption.styles.margin = (1, 0, 0, 0)  # apart from the state line above it
    return [caption, chart]
