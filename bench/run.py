"""Runs every benchmark, then prints one table of goals and writes it to results/table.json."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from table_row import RESULTS, Row, check, load  # noqa: E402
from timing_rows import (  # noqa: E402
    acp_rows,
    archive_rows,
    blocking_rows,
    fold_rows,
    headless_rows,
    live_memory_rows,
    sandbox_rows,
)
from tui_results import (  # noqa: E402
    FLAT_MEMORY_GOAL_RATIO,
    GOAL_SESSION,
    KEY_GOAL_MS,
    MEMORY_GOAL_RATIO,
    RELAYOUT_GOAL_MS,
    SMALL_SESSION,
    STARTUP_GOAL_RATIO,
    STREAM_GOAL_RATIO,
    STREAM_GOAL_TOKENS_PER_S,
)

# Where every script writes its JSON and where the table lands beside them (JSON for tools,
# Markdown for README).
TABLE_JSON = RESULTS / "table.json"
TABLE_MARKDOWN = RESULTS / "table.md"
# The scripts, in order: the engine without a model, the replay of the recorded sessions
# (bench/data/), then the terminal UI's startup, streaming, key latency and memory, grep's
# regexes, the headless cold start and memory, a session growing live all day, one fold's wall
# time, the folds' blocking, the sandbox's start, an editor's first prompt over ACP, and the
# archive index. Each writes its own JSON into RESULTS; the table is built from those files
# alone, so --table-only needs no run.
SCRIPTS = (
    "engine_overhead.py",
    "replay_compare.py",
    "tui_startup.py",
    "tui_streaming.py",
    "tui_latency.py",
    "tui_memory.py",
    "headless_memory.py",
    "live_memory.py",
    "grep_patterns.py",
    "cold_start.py",
    "fold_time.py",
    "fold_blocking.py",
    "sandbox_start.py",
    "acp_first_prompt.py",
    "archive_index.py",
)
# The other designs replay compares pleat's (`insert`) with; the first bills a summary request
# of its own, the second masks old tool outputs, the last never compacts.
OTHER_STRATEGIES = ("separate", "mask", "none")


def replay_rows(window: str) -> list[Row]:
    """Compression cache share and billed input of each other design vs pleat at one window, and
    what pleat's notes for unchanged re-reads kept out of its requests (agent/replay/rereads.py)."""
    report = load(f"replay-{window}.json")

    def totals(strategy: str) -> dict[str, Any]:
        result: dict[str, Any] = report["strategies"][strategy]["totals"]
        return result

    def share() -> tuple[float, str]:
        value = float(totals("insert")["compression_cache_share"])
        return value, f"{value:.0%}"

    def billed(strategy: str) -> Callable[[], tuple[float, str]]:
        def read() -> tuple[float, str]:
            other, pleat = totals(strategy), totals("insert")
            ratio = other["billed_on_common"] / pleat["billed_on_common"]
            return ratio, (
                f"{ratio:.2f}x ({report['common_sessions']} common sessions; {strategy} "
                f"finished {other['finished']}/{other['sessions']}, pleat "
                f"{pleat['finished']}/{pleat['sessions']})"
            )

        return read

    def rereads() -> tuple[float, str]:
        pleat = totals("insert")
        saved = int(pleat["reread_tokens_saved"])
        return (
            saved,
            f"{saved:,} tokens in {pleat['reread_notes']} notes ({pleat['sessions']} sessions)",
        )

    rows = [check(f"compression calls served from cache, {window}", ">= 90%", 0.9, share)]
    for strategy in OTHER_STRATEGIES:
        rows.append(
            check(
                f"billed input of {strategy} vs pleat, {window}", "> 1.00x", 1.0, billed(strategy)
            )
        )
    rows.append(
        check(
            f"tool-result tokens not sent again: unchanged re-reads as notes, {window}",
            "> 0 tokens",
            0.0,
            rereads,
        )
    )
    return rows


def engine_rows() -> list[Row]:
    """Per-turn accounting, compaction bookkeeping and resume, without a model."""
    engine = load("engine.json")

    def per_turn() -> tuple[float, str]:
        value = float(engine["per_turn_ms"]["10000"])
        return value, f"{value:.3f} ms"

    def bookkeeping() -> tuple[float, str]:
        value = float(engine["bookkeeping_ms"])
        return value, f"{value:.1f} ms ({engine['bookkeeping_tokens']:,} tokens)"

    def resume() -> tuple[float, str]:
        value = float(engine["resume_s"])
        return value, f"{value:.3f} s"

    return [
        check("per-turn accounting at 10,000 messages", "< 1 ms", 1.0, per_turn),
        check("compaction bookkeeping at 200k tokens", "< 50 ms", 50.0, bookkeeping),
        check("resume, 10,000 messages and 20 chunks", "< 0.5 s", 0.5, resume),
    ]


def tui_sections() -> dict[str, Any]:
    """The TUI scripts' sections: those of tui.json, each replaced by a tui-<section>.json of its
    own where one exists. Fields the rows do not read are ignored."""
    sections: dict[str, Any] = dict(load("tui.json").get("sections") or {})
    for path in sorted(RESULTS.glob("tui-*.json")):
        data = load(path.name)
        if isinstance(data.get("sections"), dict):
            sections.update(data["sections"])
        elif data:
            sections[path.stem.removeprefix("tui-")] = data
    return sections


def tui_rows() -> list[Row]:
    """First frame, streaming rate (absolute and against the agent alone), key latency."""
    sections = tui_sections()
    startup = sections.get("startup") or {}
    streaming = sections.get("streaming") or {}
    latency = sections.get("latency") or {}
    memory = sections.get("memory") or {}

    def first_frame() -> tuple[float, str]:
        ratio = float(startup["ratio"])
        return ratio, f"{ratio:.2f}x ({startup['pleat_ms']:.0f} ms vs {startup['bare_ms']:.0f} ms)"

    def rate() -> tuple[float, str]:
        value = float(streaming["tui_tokens_per_s"])
        return value, f"{value:,.0f} tokens/s"

    def against_agent() -> tuple[float, str]:
        tui, agent = float(streaming["tui_tokens_per_s"]), float(streaming["agent_tokens_per_s"])
        return tui / agent, f"{tui / agent:.2f}x ({tui:,.0f} vs {agent:,.0f} tokens/s)"

    def key(section: str) -> Callable[[], tuple[float, str]]:
        def read() -> tuple[float, str]:
            sizes = latency[section]
            result = sizes[GOAL_SESSION]
            p95 = float(result["p95_ms"])
            # The smaller sessions measured in the same run show how the latency grows.
            smaller = sorted((size for size in sizes if size != GOAL_SESSION), key=int)
            counts = " / ".join(f"{int(size):,}" for size in smaller)
            times = " / ".join(f"{float(sizes[size]['p95_ms']):.1f}" for size in smaller)
            growth = f"; p95 at {counts} messages: {times} ms" if smaller else ""
            return p95, f"{p95:.1f} ms (median {result['median_ms']:.1f} ms{growth})"

        return read

    def memory_ratio() -> tuple[float, str]:
        ratio = float(memory["ratio"])
        return ratio, (
            f"{ratio:.2f}x ({memory['pleat_mib']:.0f} MiB vs {memory['bare_mib']:.0f} MiB; "
            f"import litellm alone {memory['litellm_mib']:.0f} MiB)"
        )

    def flat_tui() -> tuple[float, str]:
        ratio = float(memory["flat_ratio"])
        return ratio, f"{ratio:.2f}x ({memory['pleat_mib']:.0f} vs {memory['small_mib']:.0f} MiB)"

    def flat_headless() -> tuple[float, str]:
        headless = load("headless_memory.json")
        ratio = float(headless["ratio"])
        return ratio, (
            f"{ratio:.2f}x ({headless['large_mib']:.0f} vs {headless['small_mib']:.0f} MiB, "
            f"median of {headless['repeats']})"
        )

    long = f"{int(GOAL_SESSION):,} messages ({memory.get('folds', 50)} folds)"
    small = f"{int(SMALL_SESSION):,}"

    return [
        check(
            "TUI first frame vs a bare Textual app (Header, Input, Footer)",
            f"<= {STARTUP_GOAL_RATIO}x",
            STARTUP_GOAL_RATIO,
            first_frame,
        ),
        check(
            "TUI streaming: tokens rendered per second",
            f">= {STREAM_GOAL_TOKENS_PER_S:,} tokens/s",
            float(STREAM_GOAL_TOKENS_PER_S),
            rate,
        ),
        check(
            "TUI streaming rate vs the agent alone consuming the same stream (same run)",
            f">= {STREAM_GOAL_RATIO}x",
            STREAM_GOAL_RATIO,
            against_agent,
        ),
        check(
            f"keypress to screen p95, {long}",
            f"< {KEY_GOAL_MS} ms",
            float(KEY_GOAL_MS),
            key("by_messages"),
        ),
        check(
            f"a key that re-lays the screen out (new line in the prompt) p95, {long}",
            f"< {RELAYOUT_GOAL_MS} ms",
            float(RELAYOUT_GOAL_MS),
            key("relayout_by_messages"),
        ),
        check(
            f"TUI peak memory holding {long} vs a bare Textual app",
            f"<= {MEMORY_GOAL_RATIO}x",
            MEMORY_GOAL_RATIO,
            memory_ratio,
        ),
        check(
            f"TUI peak memory, {long} vs {small}",
            f"<= {FLAT_MEMORY_GOAL_RATIO}x",
            FLAT_MEMORY_GOAL_RATIO,
            flat_tui,
        ),
        check(
            f"`pleat -p --resume` peak memory, {long} vs {small}",
            f"<= {FLAT_MEMORY_GOAL_RATIO}x",
            FLAT_MEMORY_GOAL_RATIO,
            flat_headless,
        ),
    ]


def grep_rows() -> list[Row]:
    """What the time limit on model-written regexes costs grep's matching."""
    grep = load("grep.json")

    def ratio() -> tuple[float, str]:
        value = float(grep["median_ratio"])
        worst = max(float(r) for r in grep["ratios"].values())
        return value, f"{value:.2f}x median, {worst:.2f}x worst ({grep['lines']:,} lines)"

    return [
        check(
            "grep matching, time-limited regex vs plain re (same lines, same run)",
            "<= 3.0x",
            3.0,
            ratio,
        )
    ]


def table_rows() -> list[Row]:
    """Every row, from the results files as they are now."""
    return [
        *replay_rows("16k"),
        *replay_rows("32k"),
        *engine_rows(),
        *tui_rows(),
        *grep_rows(),
        *headless_rows(),
        *fold_rows(),
        *blocking_rows(),
        *sandbox_rows(),
        *acp_rows(),
        *archive_rows(),
        *live_memory_rows(),
    ]


def markdown(rows: list[Row]) -> str:
    """The rows as README's Markdown table."""
    lines = ["| measure | goal | measured | met |", "| --- | --- | --- | --- |"]
    for row in rows:
        met = "yes" if row.met else "no"
        lines.append(f"| {row.measure} | {row.goal} | {row.measured} | {met} |")
    return "\n".join(lines)


def run_scripts() -> list[str]:
    """Runs each script in turn (their own output goes to stderr, so stdout is the table alone);
    returns those that crashed."""
    crashed = []
    for script in SCRIPTS:
        print(f"== {script}", file=sys.stderr, flush=True)
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(BENCH / script)], stdout=sys.stderr, cwd=BENCH.parent
        )
        took = time.monotonic() - started
        if done.returncode != 0:
            crashed.append(script)
            print(f"== {script} crashed (exit {done.returncode})", file=sys.stderr, flush=True)
        else:
            print(f"== {script}: {took:.0f} s", file=sys.stderr, flush=True)
    return crashed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--table-only",
        action="store_true",
        help="print the table from bench/results/ as it is, without running the benchmarks",
    )
    options = parser.parse_args(argv)
    crashed = [] if options.table_only else run_scripts()
    rows = table_rows()
    RESULTS.mkdir(parents=True, exist_ok=True)
    TABLE_JSON.write_text(json.dumps([asdict(row) for row in rows], indent=2) + "\n")
    text = markdown(rows)
    TABLE_MARKDOWN.write_text(text + "\n")
    print(text)
    if crashed:
        # A goal not met is a result; a benchmark that crashed is not, and its rows are stale.
        print(f"crashed: {', '.join(crashed)} (their rows show older results)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
