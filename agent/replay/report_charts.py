"""The report page's charts (plotly figures): one session's calls, and every session's totals."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from agent.replay.strategies import StrategyResult

# One colour per strategy, the same in every chart (plotly's own first four, so the page looks
# like any other plotly page); an unknown strategy falls back to grey.
COLORS = {"insert": "#636efa", "separate": "#ef553b", "mask": "#00cc96", "none": "#ab63fa"}
OTHER_COLOR = "#7f7f7f"
# The session menu offers at most this many sessions: each one's series is carried in the page,
# and past this many a menu is no longer something a person scrolls through. The typical
# session and those some strategy failed come first.
MENU_SESSIONS = 60
# Pixel height of a chart of two stacked plots: each reads comfortably at about 300 pixels.
TALL = 700


def color(strategy: str) -> str:
    return COLORS.get(strategy, OTHER_COLOR)


def by_session(
    by_strategy: dict[str, list[StrategyResult]],
) -> dict[str, dict[str, StrategyResult]]:
    """session name -> strategy -> its result, in the file's order."""
    sessions: dict[str, dict[str, StrategyResult]] = {}
    for name, results in by_strategy.items():
        for result in results:
            sessions.setdefault(result.session, {})[name] = result
    return sessions


def typical_session(sessions: dict[str, dict[str, StrategyResult]]) -> str | None:
    """The session shown first: of those where some strategy folded, the one of median length
    (a fold is what the page is about); without any fold, the median one of all."""
    if not sessions:
        return None
    folded = [s for s, runs in sessions.items() if any(r.series.folds for r in runs.values())]
    pool = folded or list(sessions)

    def length(session: str) -> int:
        return max(r.requests for r in sessions[session].values())

    middle = statistics.median_low([length(s) for s in pool])
    return next(s for s in pool if length(s) == middle)


def menu_sessions(sessions: dict[str, dict[str, StrategyResult]], typical: str) -> list[str]:
    """The sessions in the menu, in the file's order: the typical one, those some strategy
    failed, then the rest, up to MENU_SESSIONS."""
    failed = [s for s, runs in sessions.items() if any(_failed(r) for r in runs.values())]
    chosen = list(dict.fromkeys([typical, *failed, *sessions]))[:MENU_SESSIONS]
    order = {name: index for index, name in enumerate(sessions)}
    return sorted(chosen, key=order.__getitem__)


def _failed(result: StrategyResult) -> bool:
    return not result.finished or result.failures > 0


def _strategy_traces(name: str, result: StrategyResult | None) -> list[dict[str, Any]]:
    """One strategy's four traces on one session: its context per call, the calls right after
    a fold (or a masking), the call that overflowed, and its billed input so far."""
    if result is None:
        return [{"x": [], "y": [], "text": []} for _ in range(4)]
    series = result.series
    calls = list(range(1, len(series.context) + 1))
    labels = [f"call {call}" for call in calls]
    what = "masking" if series.masks else "fold"
    marks = [m for m in sorted({*series.folds, *series.masks}) if m < len(calls)]
    refused = calls[-1:] if not result.finished else []
    return [
        {"x": calls, "y": series.context, "text": labels},
        {
            "x": [m + 1 for m in marks],
            "y": [series.context[m] for m in marks],
            "text": [f"{name}: {what} before call {m + 1}" for m in marks],
        },
        {
            "x": refused,
            "y": series.context[-1:] if refused else [],
            "text": [f"{name}: call {c} overflowed the window; the session ends" for c in refused],
        },
        {"x": calls, "y": [round(b, 1) for b in series.billed], "text": labels},
    ]


def _traces(runs: dict[str, StrategyResult], strategies: Sequence[str]) -> list[dict[str, Any]]:
    """Every strategy's four traces, in a fixed order: the x/y/text the session menu swaps in."""
    return [trace for name in strategies for trace in _strategy_traces(name, runs.get(name))]


def session_chart(
    by_strategy: dict[str, list[StrategyResult]], *, trigger: int, window: int
) -> go.Figure | None:
    """Context per call and billed input so far, every strategy on one session (the typical
    one first, the others from a menu), with each fold and each overflow marked."""
    sessions = by_session(by_strategy)
    typical = typical_session(sessions)
    if typical is None:
        return None
    strategies = list(by_strategy)
    figure = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        subplot_titles=("Context tokens per call", "Billed input so far (cost units)"),
    )
    first = _traces(sessions[typical], strategies)
    for number, name in enumerate(strategies):
        context, marks, overflow, billed = first[4 * number : 4 * number + 4]
        line = {"color": color(name)}
        figure.add_trace(
            go.Scatter(name=name, mode="lines", line=line, legendgroup=name, **context),
            row=1,
            col=1,
        )
        events = "maskings" if name == "mask" else "folds"
        for label, symbol, size, points in (
            (events, "triangle-down", 11, marks),
            ("overflowed", "x", 14, overflow),
        ):
            marker = {"color": color(name), "symbol": symbol, "size": size}
            figure.add_trace(
                go.Scatter(
                    name=f"{name}: {label}",
                    mode="markers",
                    marker=marker,
                    legendgroup=name,
                    hoverinfo="text",
                    **points,
                ),
                row=1,
                col=1,
            )
        figure.add_trace(
            go.Scatter(
                name=name, mode="lines", line=line, legendgroup=name, showlegend=False, **billed
            ),
            row=2,
            col=1,
        )
    figure.add_hline(
        y=trigger, line_dash="dash", annotation_text=f"fold threshold {trigger:,}", row=1, col=1
    )
    figure.add_hline(y=window, line_dash="dot", annotation_text=f"window {window:,}", row=1, col=1)
    buttons = []
    for session in menu_sessions(sessions, typical):
        data = _traces(sessions[session], strategies)
        swap = {key: [trace[key] for trace in data] for key in ("x", "y", "text")}
        buttons.append(
            {"label": session, "method": "update", "args": [swap, {"title.text": _title(session)}]}
        )
    figure.update_layout(
        title={"text": _title(typical)},
        height=TALL,
        hovermode="closest",
        updatemenus=[
            {
                "buttons": buttons,
                "active": [b["label"] for b in buttons].index(typical),
                "x": 1.0,
                "xanchor": "right",
                "y": 1.12,
                "yanchor": "top",
            }
        ],
    )
    figure.update_xaxes(title_text="model call", row=2, col=1)
    return figure


def _title(session: str) -> str:
    return f"One session, call by call: {session}"


def totals_chart(by_strategy: dict[str, list[StrategyResult]], *, window: int) -> go.Figure | None:
    """Every session: billed input accumulated session after session, and each session's peak
    context; a session a strategy failed is marked with a cross."""
    if not any(by_strategy.values()):
        return None
    figure = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        subplot_titles=(
            "Billed input, all sessions so far (cost units)",
            "Peak context per session",
        ),
    )
    for name, results in by_strategy.items():
        numbers = list(range(1, len(results) + 1))
        running, billed = 0.0, []
        for result in results:
            running += result.billed
            billed.append(round(running, 1))
        names = [r.session for r in results]
        failed = [i for i, r in enumerate(results) if _failed(r)]
        style = {"legendgroup": name, "line": {"color": color(name)}}
        figure.add_trace(
            go.Scatter(name=name, x=numbers, y=billed, text=names, mode="lines", **style),
            row=1,
            col=1,
        )
        figure.add_trace(
            go.Scatter(
                name=name,
                x=numbers,
                y=[r.peak_context for r in results],
                text=names,
                mode="markers",
                marker={"color": color(name), "size": 6},
                legendgroup=name,
                showlegend=False,
            ),
            row=2,
            col=1,
        )
        figure.add_trace(
            go.Scatter(
                name=f"{name}: failed",
                x=[numbers[i] for i in failed],
                y=[billed[i] for i in failed],
                text=[f"{name} failed {names[i]}" for i in failed],
                mode="markers",
                marker={"color": color(name), "symbol": "x", "size": 12},
                legendgroup=name,
                hoverinfo="text",
            ),
            row=1,
            col=1,
        )
    figure.add_hline(y=window, line_dash="dot", annotation_text=f"window {window:,}", row=2, col=1)
    figure.update_layout(title={"text": "All sessions"}, height=TALL, hovermode="closest")
    figure.update_xaxes(title_text="session (in the file's order)", row=2, col=1)
    return figure
