"""Shared by the TUI benchmarks: sections of bench/results/tui.json (and tui-*.json), the rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "tui.json"
# The goals (issue 13 item 5 for keys; issue 32 item 2 for the first frame and streaming;
# memory is issue 24's).
STARTUP_GOAL_RATIO = 1.3  # first frame, pleat / a bare Textual app
STREAM_GOAL_TOKENS_PER_S = 1_000  # a reply shown at least this fast ...
STREAM_GOAL_RATIO = 0.9  # ... and at least this share of the agent alone's rate, same stream
# Keypress to screen, p95, at GOAL_SESSION messages (a fold per 200), for an ordinary key and
# for one that lays the whole screen out again: one frame at 60 Hz (issue 32).
KEY_GOAL_MS = 16
RELAYOUT_GOAL_MS = 16
GOAL_SESSION = "10000"
# Peak memory at GOAL_SESSION messages over that at SMALL_SESSION, TUI and headless (issue 32):
# what pleat keeps per message must not add up over a day-long session.
SMALL_SESSION = "100"
FLAT_MEMORY_GOAL_RATIO = 1.2
# Peak memory holding GOAL_SESSION messages, pleat / a bare Textual app (Header, Input, Footer;
# 34 MiB here). pleat also holds what it cannot work without: litellm (150 MiB over the interpreter)
# and the tokenizer its context is counted with (o200k_base, 75 MiB), which alone make about
# 7.7x; the goal leaves about 40 MiB for the session's messages, a window of widgets and pleat's
# own modules (tui_memory.py).
MEMORY_GOAL_RATIO = 9.0


def _rows(sections: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    startup = sections.get("startup")
    if startup:
        rows.append(
            {
                "measure": "TUI first frame vs a bare Textual app (Header, Input, Footer)",
                "goal": f"<= {STARTUP_GOAL_RATIO}x",
                "measured": f"{startup['ratio']:.2f}x ({startup['pleat_ms']:.0f} ms vs "
                f"{startup['bare_ms']:.0f} ms)",
                "met": startup["ratio"] <= STARTUP_GOAL_RATIO,
            }
        )
    streaming = sections.get("streaming")
    if streaming:
        tui, alone = streaming["tui_tokens_per_s"], streaming["agent_tokens_per_s"]
        ratio = streaming.get("ratio", tui / alone)
        rows.append(
            {
                "measure": "streamed tokens shown per second, TUI (agent alone on the same "
                "stream, in the same run)",
                "goal": f">= {STREAM_GOAL_TOKENS_PER_S:,} and >= {STREAM_GOAL_RATIO}x "
                "the agent alone",
                "measured": f"{tui:,.0f} ({alone:,.0f}: {ratio:.2f}x)",
                "met": tui >= STREAM_GOAL_TOKENS_PER_S and ratio >= STREAM_GOAL_RATIO,
            }
        )
    latency = sections.get("latency")
    if latency:
        for size, result in latency["by_messages"].items():
            goal = f"< {KEY_GOAL_MS} ms" if size == GOAL_SESSION else "-"
            rows.append(
                {
                    "measure": f"keypress to screen, {int(size):,} messages in the session "
                    "(median / p95)",
                    "goal": goal,
                    "measured": f"{result['median_ms']:.1f} / {result['p95_ms']:.1f} ms",
                    "met": result["p95_ms"] < KEY_GOAL_MS,
                }
            )
        relayout = latency.get("relayout_by_messages", {}).get(GOAL_SESSION)
        if relayout:
            rows.append(
                {
                    "measure": "a key that re-lays the screen out (new line in the prompt), "
                    f"{int(GOAL_SESSION):,} messages (median / p95)",
                    "goal": f"< {RELAYOUT_GOAL_MS} ms",
                    "measured": f"{relayout['median_ms']:.1f} / {relayout['p95_ms']:.1f} ms",
                    "met": relayout["p95_ms"] < RELAYOUT_GOAL_MS,
                }
            )
    memory = sections.get("memory")
    if memory:
        rows.append(
            {
                "measure": f"peak memory holding {memory['messages']:,} messages, pleat / a bare "
                "Textual app",
                "goal": f"<= {MEMORY_GOAL_RATIO}x",
                "measured": f"{memory['ratio']:.2f}x ({memory['pleat_mib']:.0f} MiB vs "
                f"{memory['bare_mib']:.0f} MiB; import litellm alone "
                f"{memory['litellm_mib']:.0f} MiB)",
                "met": memory["ratio"] <= MEMORY_GOAL_RATIO,
            }
        )
        flat = memory.get("flat_ratio")
        if flat is not None:
            rows.append(
                {
                    "measure": "TUI peak memory, 10,000 messages (50 folds) / 100 messages",
                    "goal": f"<= {FLAT_MEMORY_GOAL_RATIO}x",
                    "measured": f"{flat:.2f}x ({memory['pleat_mib']:.0f} MiB vs "
                    f"{memory['small_mib']:.0f} MiB)",
                    "met": flat <= FLAT_MEMORY_GOAL_RATIO,
                }
            )
    return rows


def save(section: str, data: dict[str, Any]) -> None:
    """Replace one section and rebuild the rows; the section is also written alone to
    tui-<section>.json, which bench/run.py prefers."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    alone = RESULTS.with_name(f"tui-{section}.json")
    alone.write_text(json.dumps(data, indent=2) + "\n")
    try:
        current = json.loads(RESULTS.read_text())
    except (OSError, json.JSONDecodeError):
        current = {}
    sections = current.get("sections", {})
    sections[section] = data
    RESULTS.write_text(json.dumps({"sections": sections, "rows": _rows(sections)}, indent=2) + "\n")
