"""`pleat replay FILE.jsonl`: run recorded sessions through each strategy and report."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from agent.compaction.offline_model import LABEL
from agent.compaction.policy import Budget, CompactionPolicy, PolicyError
from agent.replay.cache_model import DEFAULT_LIFETIME_SECONDS, CacheModel, Prices
from agent.replay.recorded import read_sessions
from agent.replay.report import as_json, as_table
from agent.replay.strategies import STRATEGIES, StrategyResult, run_strategy

# Window used when the user gives none: the smaller of the two the benchmark runs.
DEFAULT_WINDOW = 16_000


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pleat replay",
        description="Replay recorded sessions (OpenAI chat messages, one session a JSON line) "
        "through the compaction engine and compare strategies.",
    )
    parser.add_argument("file", type=Path, help="a .jsonl or .jsonl.gz file of sessions")
    parser.add_argument("--context-window", type=int, default=DEFAULT_WINDOW, metavar="N")
    parser.add_argument(
        "--strategy",
        action="append",
        choices=STRATEGIES,
        help="strategy to run (repeatable; default: all four)",
    )
    parser.add_argument("--json", action="store_true", help="per-session results as JSON")
    parser.add_argument(
        "--report",
        type=Path,
        metavar="FILE.html",
        help="also write a page of charts comparing the strategies (one file, opens offline)",
    )
    parser.add_argument("--limit", type=int, help="only the first N sessions")
    parser.add_argument("--model", help="summarize with a real model instead of the offline one")
    parser.add_argument("--api-base", help="with --model: an OpenAI-compatible server")
    parser.add_argument("--api-key", help="with --model: the API key")
    parser.add_argument(
        "--cache-lifetime",
        type=float,
        default=DEFAULT_LIFETIME_SECONDS,
        metavar="SECONDS",
        help="how long a cached prefix lives after its last use",
    )
    parser.add_argument(
        "--prices",
        default="1.0,0.1,1.25",
        metavar="UNCACHED,READ,WRITE",
        help="cost units per input token (default: Anthropic's ratios)",
    )
    parser.add_argument(
        "--compaction", action="append", default=[], metavar="KEY=VALUE", help="policy setting"
    )
    return parser


def _policy(args: argparse.Namespace) -> CompactionPolicy:
    values: dict[str, Any] = {"context_window": args.context_window}
    kinds = {f.name: f.type for f in CompactionPolicy.__dataclass_fields__.values()}
    for item in args.compaction:
        key, _, raw = item.partition("=")
        if key not in kinds:
            raise PolicyError(f"unknown compaction setting {key!r}")
        values[key] = float(raw) if "float" in str(kinds[key]) else int(raw)
    return CompactionPolicy(**values)


def _prices(args: argparse.Namespace) -> Prices:
    return Prices(*(float(p) for p in args.prices.split(",")))


def _summarizer(args: argparse.Namespace) -> tuple[Any, str]:
    if not args.model:
        return None, LABEL
    from agent.model.llm import LLM
    from agent.model.settings import ModelSettings

    llm = LLM(ModelSettings(model=args.model, api_base=args.api_base, api_key=args.api_key))
    return llm, f"summaries by {args.model}"


async def replay_file(
    args: argparse.Namespace, progress: TextIO
) -> dict[str, list[StrategyResult]]:
    policy = _policy(args)
    prices = _prices(args)
    strategies = args.strategy or list(STRATEGIES)
    sessions = list(read_sessions(args.file))[: args.limit]
    summarizer, _ = _summarizer(args)
    results: dict[str, list[StrategyResult]] = {name: [] for name in strategies}
    with tempfile.TemporaryDirectory(prefix="pleat-replay-") as scratch:
        for number, session in enumerate(sessions, 1):
            for name in strategies:
                cache = CacheModel(prices=prices, lifetime=args.cache_lifetime)
                result = await run_strategy(
                    name,
                    session,
                    policy=policy,
                    window=args.context_window,
                    archive_dir=Path(scratch) / name / f"{number:04d}",
                    cache=cache,
                    summarizer=summarizer,
                )
                results[name].append(result)
            if progress.isatty() or len(sessions) > 1:
                bar = "#" * (30 * number // len(sessions))
                progress.write(f"\rreplay [{bar:<30}] {number}/{len(sessions)} sessions")
                progress.flush()
    if sessions:
        progress.write("\n")
    return results


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if not args.file.is_file():
        print(f"pleat: error: no such file: {args.file}", file=sys.stderr)
        return 2
    try:
        results = asyncio.run(replay_file(args, sys.stderr))
    except (PolicyError, ValueError, KeyError, json.JSONDecodeError) as error:
        print(f"pleat: error: {args.file}: {error}", file=sys.stderr)
        return 2
    meta = {
        "file": str(args.file),
        "window": args.context_window,
        "sessions": len(next(iter(results.values()), [])),
        "summarizer": _summarizer(args)[1],
    }
    print(json.dumps(as_json(results, meta), indent=2) if args.json else as_table(results, meta))
    if args.report is not None:
        return _write_report(args, results, meta)
    return 0


def _write_report(
    args: argparse.Namespace, results: dict[str, list[StrategyResult]], meta: dict[str, Any]
) -> int:
    """The --report page (plotly is imported only here: it takes a moment)."""
    from agent.replay.report_page import write_page

    trigger = Budget.of(_policy(args), args.context_window).trigger_tokens
    try:
        write_page(args.report, results, meta, trigger=trigger, prices=_prices(args))
    except OSError as error:
        print(f"pleat: error: cannot write {args.report}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"pleat: report written to {args.report}", file=sys.stderr)
    return 0
