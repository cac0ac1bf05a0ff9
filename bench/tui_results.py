"""Shared by the TUI benchmarks: sections of bench/results/tui.json and the rows README shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "tui.json"


def _rows(sections: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    startup = sections.get("startup")
    if startup:
        rows.append(
            {
                "measure": "TUI first frame vs a bare Textual app (Header, Input, Footer)",
                "goal": "<= 1.5x",
                "measured": f"{startup['ratio']:.2f}x ({startup['pleat_ms']:.0f} ms vs "
                f"{startup['bare_ms']:.0f} ms)",
                "met": startup["ratio"] <= 1.5,
            }
        )
    streaming = sections.get("streaming")
    if streaming:
        rows.append(
            {
                "measure": "streamed tokens rendered per second (TUI)",
                "goal": ">= 1,000",
                "measured": f"{streaming['tui_tokens_per_s']:,.0f}",
                "met": streaming["tui_tokens_per_s"] >= 1_000,
            }
        )
    latency = sections.get("latency")
    if latency:
        for size, result in latency["by_messages"].items():
            goal = "< 100 ms" if size == "2000" else "-"
            rows.append(
                {
                    "measure": f"keypress to screen, {int(size):,} messages in the session "
                    "(median / p95)",
                    "goal": goal,
                    "measured": f"{result['median_ms']:.1f} / {result['p95_ms']:.1f} ms",
                    "met": result["p95_ms"] < 100,
                }
            )
        relayout = latency.get("relayout_by_messages", {}).get("2000")
        if relayout:
            rows.append(
                {
                    "measure": "a key that re-lays the screen out (new line in the prompt), "
                    "2,000 messages (median / p95)",
                    "goal": "< 100 ms",
                    "measured": f"{relayout['median_ms']:.1f} / {relayout['p95_ms']:.1f} ms",
                    "met": relayout["p95_ms"] < 100,
                }
            )
    return rows


def save(section: str, data: dict[str, Any]) -> None:
    """Replace one section and rebuild the rows."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    try:
        current = json.loads(RESULTS.read_text())
    except (OSError, json.JSONDecodeError):
        current = {}
    sections = current.get("sections", {})
    sections[section] = data
    RESULTS.write_text(json.dumps({"sections": sections, "rows": _rows(sections)}, indent=2) + "\n")
