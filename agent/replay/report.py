"""The replay report: per strategy totals (and per session with --json)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from agent.replay.strategies import CallSeries, StrategyResult


def totals(results: Sequence[StrategyResult]) -> dict[str, Any]:
    """One strategy over all sessions."""
    compression_prompt = sum(r.compression_prompt_tokens for r in results)
    return {
        "sessions": len(results),
        "finished": sum(r.finished for r in results),
        "compactions": sum(r.compactions for r in results),
        "failed_compactions": sum(r.failures for r in results),
        "requests": sum(r.requests for r in results),
        "peak_context": max((r.peak_context for r in results), default=0),
        "billed_input": round(sum(r.billed for r in results), 1),
        "prompt_tokens": sum(r.prompt_tokens for r in results),
        "compression_cache_share": (
            sum(r.compression_cached_tokens for r in results) / compression_prompt
            if compression_prompt
            else None
        ),
        "engine_seconds": round(sum(r.engine_seconds for r in results), 3),
        "reread_notes": sum(r.reread_notes for r in results),
        "reread_tokens_saved": sum(r.reread_tokens_saved for r in results),
        "overflows": sorted(
            (r.session, r.overflow_at) for r in results if r.overflow_at is not None
        ),
    }


def common_sessions(by_strategy: dict[str, list[StrategyResult]]) -> set[str]:
    """Sessions every strategy finished: where billed input compares like with like."""
    finished = [{r.session for r in results if r.finished} for results in by_strategy.values()]
    return set.intersection(*finished) if finished else set()


def billed_on(results: Sequence[StrategyResult], sessions: set[str]) -> float:
    return sum(r.billed for r in results if r.session in sessions)


def session_json(result: StrategyResult) -> dict[str, Any]:
    """One session's figures; the per-request series are left to the --report page."""
    record = dataclasses.asdict(dataclasses.replace(result, series=CallSeries()))
    del record["series"]
    return record


def as_json(by_strategy: dict[str, list[StrategyResult]], meta: dict[str, Any]) -> dict[str, Any]:
    common = common_sessions(by_strategy)
    return {
        **meta,
        "common_sessions": len(common),
        "strategies": {
            name: {
                "totals": {
                    **totals(results),
                    "billed_on_common": round(billed_on(results, common), 1),
                },
                "sessions": [session_json(r) for r in results],
            }
            for name, results in by_strategy.items()
        },
    }


def as_table(by_strategy: dict[str, list[StrategyResult]], meta: dict[str, Any]) -> str:
    """A plain table a person reads; billed input also as a ratio to pleat's (insert)."""
    rows = [
        (
            "strategy",
            "finished",
            "compactions",
            "requests",
            "peak ctx",
            "billed input",
            "vs insert",
            "vs insert (common)",
            "compression cache",
            "engine s",
        )
    ]
    base = totals(by_strategy["insert"])["billed_input"] if "insert" in by_strategy else None
    common = common_sessions(by_strategy)
    common_base = billed_on(by_strategy["insert"], common) if "insert" in by_strategy else 0
    for name, results in by_strategy.items():
        t = totals(results)
        on_common = billed_on(results, common)
        share = t["compression_cache_share"]
        rows.append(
            (
                name,
                f"{t['finished']}/{t['sessions']}",
                str(t["compactions"]),
                str(t["requests"]),
                str(t["peak_context"]),
                f"{t['billed_input']:.0f}",
                f"{t['billed_input'] / base:.2f}x" if base else "-",
                f"{on_common / common_base:.2f}x" if common_base else "-",
                f"{share:.0%}" if share is not None else "-",
                f"{t['engine_seconds']:.2f}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        f"{meta['summarizer']} · window {meta['window']} tokens · {meta['sessions']} sessions "
        f"from {meta['file']}",
        "billed input in cost units: uncached 1.0, cache read 0.1, cache write 1.25 per token; "
        "a session that overflows the window stops there (not finished); "
        f"'common' = the {len(common)} sessions every strategy finished",
    ]
    lines += [
        "  ".join(
            c.rjust(w) if i else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    return "\n".join(lines)
