"""`pleat replay --report FILE.html`: one self-contained page comparing the strategies (the
charting library's script inlined, so it opens offline)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import plotly.io as pio
from plotly.offline import get_plotlyjs

from agent.replay.cache_model import Prices
from agent.replay.report import billed_on, common_sessions, totals
from agent.replay.report_charts import color, session_chart, totals_chart
from agent.replay.strategies import StrategyResult

# The page's look: readable type, tables that line their numbers up; nothing fetched.
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.8em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td:first-child { white-space: nowrap; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.4em; }
p.note { color: #555; }
"""
# The charts' toolbar without the plotly logo link (the page links nowhere).
CHART_CONFIG = {"displaylogo": False, "responsive": True}


def _cell(value: Any, numeric: bool = False) -> str:
    return f"<td{' class=n' if numeric else ''}>{html.escape(str(value))}</td>"


def _strategy_cell(name: str) -> str:
    swatch = f'<span class="swatch" style="background:{color(name)}"></span>'
    return f"<td>{swatch}{html.escape(name)}</td>"


def totals_table(by_strategy: dict[str, list[StrategyResult]]) -> str:
    """The text report's table: finished sessions, folds, requests, peak, billed input."""
    common = common_sessions(by_strategy)
    base = billed_on(by_strategy["insert"], common) if "insert" in by_strategy else 0.0
    head = (
        "strategy",
        "finished",
        "compactions",
        "failed compactions",
        "requests",
        "peak context",
        "billed input",
        "vs insert (common sessions)",
    )
    rows = []
    for name, results in by_strategy.items():
        t = totals(results)
        on_common = billed_on(results, common)
        cells = [
            _strategy_cell(name),
            _cell(f"{t['finished']}/{t['sessions']}", True),
            _cell(t["compactions"], True),
            _cell(t["failed_compactions"], True),
            _cell(f"{t['requests']:,}", True),
            _cell(f"{t['peak_context']:,}", True),
            _cell(f"{t['billed_input']:,.0f}", True),
            _cell(f"{on_common / base:.2f}x" if base else "-", True),
        ]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    return f'<table id="totals"><tr>{header}</tr>{"".join(rows)}</table>'


def failures_table(by_strategy: dict[str, list[StrategyResult]], window: int) -> str:
    """Every session a strategy failed: it overflowed the window, or a fold failed."""
    rows = []
    for name, results in by_strategy.items():
        for result in results:
            what = []
            if not result.finished:
                peak = result.series.context[-1] if result.series.context else result.peak_context
                what.append(
                    f"overflowed the window at call {result.requests} "
                    f"({peak:,} tokens > {window:,}); the session ends there"
                )
            if result.failures:
                what.append(f"{result.failures} compaction{'s' * (result.failures != 1)} failed")
            if what:
                cells = _strategy_cell(name) + _cell(result.session) + _cell("; ".join(what))
                rows.append(f"<tr>{cells}</tr>")
    if not rows:
        return '<p id="failures">No strategy failed any session.</p>'
    header = "<tr><th>strategy</th><th>session</th><th>what failed</th></tr>"
    return f'<table id="failures">{header}{"".join(rows)}</table>'


def _chart(figure: Any) -> str:
    if figure is None:
        return "<p>No sessions were replayed.</p>"
    return str(pio.to_html(figure, include_plotlyjs=False, full_html=False, config=CHART_CONFIG))


def page(
    by_strategy: dict[str, list[StrategyResult]],
    meta: dict[str, Any],
    *,
    trigger: int,
    prices: Prices,
) -> str:
    """The whole page as one string."""
    window = int(meta["window"])
    common = common_sessions(by_strategy)
    intro = (
        f"{meta['summarizer']} · window {window:,} tokens, fold threshold {trigger:,} · "
        f"{meta['sessions']} sessions from {meta['file']}"
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>pleat replay: strategies compared</title>",
        f"<style>{STYLE}</style>",
        f"<script>{get_plotlyjs()}</script>",
        "</head><body>",
        "<h1>pleat replay: strategies compared</h1>",
        f"<p>{html.escape(intro)}</p>",
        totals_table(by_strategy),
        f'<p class="note">Billed input is in cost units per input token (uncached '
        f"{prices.uncached}, cache read {prices.cache_read}, cache write {prices.cache_write}), "
        f"compression calls included. 'Common' sessions are the {len(common)} every strategy "
        "finished. A session that overflows the window stops at the refused call, so a "
        "failing strategy bills less for it.</p>",
        "<h2>One session, call by call</h2>",
        '<p class="note">Pick another session from the menu at the chart\'s top right. '
        "A triangle marks the first call after a fold (or a masking), a cross the call that "
        "overflowed the window.</p>",
        _chart(session_chart(by_strategy, trigger=trigger, window=window)),
        "<h2>All sessions</h2>",
        _chart(totals_chart(by_strategy, window=window)),
        "<h2>Failed sessions</h2>",
        failures_table(by_strategy, window),
        "</body></html>",
    ]
    return "\n".join(parts)


def write_page(
    path: Path,
    by_strategy: dict[str, list[StrategyResult]],
    meta: dict[str, Any],
    *,
    trigger: int,
    prices: Prices,
) -> None:
    path.write_text(page(by_strategy, meta, trigger=trigger, prices=prices), encoding="utf-8")
