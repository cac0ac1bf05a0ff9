"""The table's rows for time and memory of whole runs: the headless cold start, one fold, the
time a turn waits for folds, and what the sandbox adds to a command."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_first_prompt import GOAL_FIRST_PROMPT_RATIO
from cold_start import GOAL_COLD_START_RATIO, GOAL_PEAK_RATIO
from fold_time import GOAL_OWN_SECONDS as FOLD_GOAL_OWN_SECONDS
from fold_time import GOAL_SECONDS as FOLD_GOAL_SECONDS
from sandbox_start import GOAL_ADDED_MS
from table_row import Row, check, load


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
    """The time a turn waits for folds, window by window (bench/fold_blocking.py)."""
    results = load("fold-blocking.json")

    def row(case: dict[str, Any]) -> Row:
        def share() -> tuple[float, str]:
            slow = case["slow"]
            value = float(case["blocked_share"])
            without = case.get("without_background")
            scale = f"; without background folds {without['blocked']:.1f} s" if without else ""
            return value, (
                f"{value:.0%} ({slow['blocked']:.1f} s of {case['compression_time']:g} s of "
                f"compression calls, {slow['folds']} folds in {slow['steps']} steps{scale})"
            )

        return check(
            f"turn blocked by folds vs the compression calls' time, {case['window'] // 1000}k "
            f"window, {case['step_bytes']:,}-byte steps ({results['compression_seconds']:g} s "
            f"calls, {results['step_seconds']:g} s tool steps)",
            f"<= {GOAL_BLOCKED_SHARE:.0%}",
            GOAL_BLOCKED_SHARE,
            share,
        )

    return [row(case) for case in results["cases"]]


def sandbox_rows() -> list[Row]:
    """What the sandbox's launcher adds to the start of a command (bench/sandbox_start.py)."""
    results = load("sandbox_start.json")

    def added() -> tuple[float, str]:
        value = float(results["added_ms"])
        return value, (
            f"{value:.0f} ms ({results['confined_ms']:.1f} ms vs {results['plain_ms']:.1f} ms for "
            f"`sh -c true`, median of {results['pairs']} interleaved pairs)"
        )

    return [
        check(
            "what the sandbox adds to a command's start (workspace-write, Landlock, namespaces, "
            "seccomp)",
            f"< {GOAL_ADDED_MS:g} ms",
            GOAL_ADDED_MS,
            added,
        )
    ]


def acp_rows() -> list[Row]:
    """An editor's first prompt after typing vs sent at once (bench/acp_first_prompt.py)."""
    results = load("acp_first_prompt.json")

    def ratio() -> tuple[float, str]:
        value = float(results["first_prompt_ratio"])
        return value, (
            f"{value:.2f}x ({results['first_prompt_after_typing_s']:.2f} s after "
            f"{results['typing_seconds']:g} s of typing vs "
            f"{results['first_prompt_at_once_s']:.2f} s at once; "
            f"handshake {results['handshake_s']:.2f} s, a warm prompt "
            f"{results['warm_prompt_s'] * 1000:.0f} ms; medians of {results['rounds']} rounds)"
        )

    return [
        check(
            "`pleat acp`: an editor's first prompt after typing vs sent at once (litellm warmed "
            "up while the user types)",
            f"<= {GOAL_FIRST_PROMPT_RATIO:g}x",
            GOAL_FIRST_PROMPT_RATIO,
            ratio,
        )
    ]


def archive_rows() -> list[Row]:
    """A year of sessions searched and listed through the archive index (bench/archive_index.py)."""
    results = load("archive-index.json")
    scale = f"{results['sessions']:,} sessions, {results['bytes'] / 1e9:.1f} GB"

    def search() -> tuple[float, str]:
        value = float(results["search_warm_ms"]) if results["search_found_fact"] else 1e9
        found = "found" if results["search_found_fact"] else "NOT found"
        return value, (
            f"{value:.0f} ms, the fact {found} (median of {len(results['search_runs_ms'])}; "
            f"first build {results['cold_build_s']:.0f} s)"
        )

    def picker() -> tuple[float, str]:
        value = float(results["picker_ms"])
        return value, f"{value:.0f} ms ({results['picker_sessions']:,} sessions listed)"

    def rebuilt() -> tuple[float, str]:
        whole = bool(results["rebuild_notice"]) and bool(results["rebuild_found_fact"])
        return float(not whole), (
            f'{"nothing lost" if whole else "LOST"}: said "{results["rebuild_notice"]}", '
            f"the fact found again ({results['rebuild_s']:.0f} s)"
        )

    return [
        check(
            f"project search of a fact in the oldest session, index warm ({scale})",
            f"< {results['search_goal_ms']:.0f} ms",
            float(results["search_goal_ms"]),
            search,
        ),
        check(
            f"resume picker's list ({scale})",
            f"< {results['picker_goal_ms']:.0f} ms",
            float(results["picker_goal_ms"]),
            picker,
        ),
        check(
            f"archive index deleted: rebuilt, said, nothing lost ({scale})",
            "<= 0 lost",
            0.0,
            rebuilt,
        ),
    ]


def live_memory_rows() -> list[Row]:
    """Peak memory of one process whose session grows live to 10,000 messages with 50 folds,
    against 100 (bench/live_memory.py): a pleat left open all day."""
    from tui_results import FLAT_MEMORY_GOAL_RATIO

    live = load("live-memory.json")
    long = f"{live.get('messages', 10_000):,} messages ({live.get('folds', 50)} folds)"
    small = f"{live.get('small_messages', 100):,}"

    def ratio(kind: str) -> Callable[[], tuple[float, str]]:
        def read() -> tuple[float, str]:
            value = float(live[f"{kind}_ratio"])
            large, few = live[f"{kind}_large_mib"], live[f"{kind}_small_mib"]
            return value, f"{value:.2f}x ({large:.0f} vs {few:.0f} MiB)"

        return read

    goal = f"<= {FLAT_MEMORY_GOAL_RATIO}x"
    return [
        check(
            f"TUI peak memory, one process growing live to {long} vs {small}",
            goal,
            FLAT_MEMORY_GOAL_RATIO,
            ratio("tui"),
        ),
        check(
            f"headless (Agent) peak memory, growing live to {long} vs {small}",
            goal,
            FLAT_MEMORY_GOAL_RATIO,
            ratio("headless"),
        ),
    ]
