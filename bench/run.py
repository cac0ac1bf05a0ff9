"""Runs every benchmark, then prints one table of goals and writes it to results/table.json."""

from __future__ import annotations

import argparse
import json
import operator
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from cold_start import GOAL_COLD_START_RATIO, GOAL_PEAK_RATIO  # noqa: E402
from fold_time import GOAL_OWN_SECONDS as FOLD_GOAL_OWN_SECONDS  # noqa: E402
from fold_time import GOAL_SECONDS as FOLD_GOAL_SECONDS  # noqa: E402
from tui_results import MEMORY_GOAL_RATIO  # noqa: E402

# Where every script writes its JSON and where the table lands beside them (JSON for tools,
# Markdown for README).
RESULTS = BENCH / "results"
TABLE_JSON = RESULTS / "table.json"
TABLE_MARKDOWN = RESULTS / "table.md"
# The scripts, in order: the engine without a model, the replay of the recorded sessions
# (bench/data/), then the terminal UI's startup, streaming, key latency and memory, grep's
# regexes, the headless cold start and memory, and one fold's wall time. Each writes its own
# JSON into RESULTS; the table is built from those files alone, so --table-only needs no run.
SCRIPTS = (
    "engine_overhead.py",
    "replay_compare.py",
    "tui_startup.py",
    "tui_streaming.py",
    "tui_latency.py",
    "tui_memory.py",
    "grep_patterns.py",
    "cold_start.py",
    "fold_time.py",
    "fold_blocking.py",
)
# How a goal compares, by the sign its text opens with (">= 90%" is value >= threshold).
COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
# The other designs replay compares pleat's (`insert`) with; the first bills a summary request
# of its own, the second masks old tool outputs, the last never compacts.
OTHER_STRATEGIES = ("separate", "mask", "none")
# The session size (messages) the key-latency goals are set at: a long session, where a UI that
# keeps every message mounted would slow down; the smaller sizes measured show the trend.
GOAL_SESSION = "2000"
# Errors a results file that is missing, older or partial raises when read: its row says so.
NOT_MEASURED = (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError)


@dataclass(frozen=True)
class Row:
    """One line of the table: a measure, its goal, what was measured and whether it meets it."""

    measure: str
    goal: str
    measured: str
    met: bool
    value: float | None
    threshold: float


def load(name: str) -> dict[str, Any]:
    """A results file of RESULTS, or {} when it is missing or unreadable (its rows say so)."""
    try:
        data = json.loads((RESULTS / name).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def check(measure: str, goal: str, threshold: float, read: Callable[[], tuple[float, str]]) -> Row:
    """The row of a goal: read() gives the value and how it is shown; the goal's text opens with
    the comparison (`>= 90%`), so the text and the verdict cannot disagree."""
    try:
        value, shown = read()
    except NOT_MEASURED:
        return Row(measure, goal, "not measured", False, None, threshold)
    return Row(
        measure, goal, shown, COMPARISONS[goal.split()[0]](value, threshold), value, threshold
    )


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

    return [
        check(
            "TUI first frame vs a bare Textual app (Header, Input, Footer)",
            "<= 1.5x",
            1.5,
            first_frame,
        ),
        check("TUI streaming: tokens rendered per second", ">= 1,000 tokens/s", 1_000.0, rate),
        check(
            "TUI streaming rate vs the agent alone consuming the same stream (same run)",
            ">= 0.5x",
            0.5,
            against_agent,
        ),
        check("keypress to screen p95, 2,000 messages", "< 50 ms", 50.0, key("by_messages")),
        check(
            "a key that re-lays the screen out (new line in the prompt) p95, 2,000 messages",
            "< 100 ms",
            100.0,
            key("relayout_by_messages"),
        ),
        check(
            "TUI peak memory holding 2,000 messages vs a bare Textual app",
            f"<= {MEMORY_GOAL_RATIO}x",
            MEMORY_GOAL_RATIO,
            memory_ratio,
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


def headless_rows() -> list[Row]:
    """`pleat -p` from a cold start: wall time and peak memory against importing litellm."""
    cold = load("cold_start.json")

    def cold_start() -> tuple[float, str]:
        ratio = float(cold["ratio"])
        return ratio, (
            f"{ratio:.2f}x ({cold['pleat_s']:.2f} s vs {cold['litellm_s']:.2f} s, "
            f"median of {cold['pairs']} interleaved pairs)"
        )

    def peak() -> tuple[float, str]:
        ratio = float(cold["peak_ratio"])
        return ratio, (
            f"{ratio:.2f}x ({cold['pleat_peak_mib']:.0f} MiB vs {cold['litellm_peak_mib']:.0f} MiB)"
        )

    return [
        check(
            'headless cold start, `pleat -p hello` (local scripted server) vs `python -c "import '
            'litellm"` (same run)',
            f"<= {GOAL_COLD_START_RATIO}x",
            GOAL_COLD_START_RATIO,
            cold_start,
        ),
        check(
            'headless peak memory, `pleat -p hello` vs `python -c "import litellm"`',
            f"<= {GOAL_PEAK_RATIO}x",
            GOAL_PEAK_RATIO,
            peak,
        ),
    ]


def fold_rows() -> list[Row]:
    """The wall time of one fold (`/compact` at the threshold) against the scripted server."""
    folds = load("fold_time.json")

    def fold(window: str) -> Callable[[], tuple[float, str]]:
        def read() -> tuple[float, str]:
            row = folds["windows"][window]
            value = float(row["median_s"])
            first = row["runs"][0]
            return value, (
                f"{value:.2f} s (model call {row['model_call_median_s']:.2f} s, pleat's own "
                f"{row['pleat_own_median_s']:.2f} s; {first['tokens_before']:,} -> "
                f"{first['tokens_after']:,} tokens)"
            )

        return read

    def own() -> tuple[float, str]:
        rows = folds["windows"].items()
        shares = {int(w) // 1000: float(row["pleat_own_median_s"]) for w, row in rows}
        shown = ", ".join(f"{share:.2f} s at {window}k" for window, share in shares.items())
        return max(shares.values()), shown

    return [
        *(
            check(
                f"one fold at {int(window) // 1000}k, scripted server (`/compact` at the "
                "threshold)",
                f"< {FOLD_GOAL_SECONDS:g} s",
                FOLD_GOAL_SECONDS,
                fold(window),
            )
            for window in ("16000", "32000")
        ),
        check(
            "a fold's own work (its wall time less its model call), 16k and 32k",
            f"< {FOLD_GOAL_OWN_SECONDS:g} s",
            FOLD_GOAL_OWN_SECONDS,
            own,
        ),
    ]


# The share of the compression calls' own time a turn may wait for folds: the issue's goal of
# folds nobody waits for (at most a tenth: the rest of a call that outran the tool steps).
GOAL_BLOCKED_SHARE = 0.10


def blocking_rows() -> list[Row]:
    """The time a turn waits for folds (bench/fold_blocking.py)."""
    results = load("fold-blocking.json")

    def share() -> tuple[float, str]:
        slow, without = results["slow"], results["without_background"]
        value = float(results["blocked_share"])
        return value, (
            f"{value:.0%} ({results['blocked_seconds']:.1f} s of {results['compression_time']:g} s "
            f"of compression calls, {slow['folds']} folds; without background folds "
            f"{without['blocked']:.1f} s)"
        )

    return [
        check(
            f"turn blocked by folds vs the compression calls' time "
            f"({results.get('compression_seconds', 3):g} s calls, 1 s tool steps)",
            f"<= {GOAL_BLOCKED_SHARE:.0%}",
            GOAL_BLOCKED_SHARE,
            share,
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
