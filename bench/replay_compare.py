"""The replay comparison: the 60 recorded sessions through the four strategies at 16k and 32k
windows (offline summarizer). Prints the tables and writes results JSON."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.compaction.offline_model import LABEL  # noqa: E402
from agent.replay.command import build_parser, replay_file  # noqa: E402
from agent.replay.report import as_json, as_table  # noqa: E402

# The 60 recorded sessions, committed with their provenance and licence (bench/data/README.md).
DATA = ROOT / "bench" / "data" / "trajectories-dev60.jsonl.gz"
# The windows compared: 16k folds most sessions (the long ones many times), 32k only the
# longer ones, so the table shows compaction both as the rule and as the exception.
WINDOWS = (16_000, 32_000)
# One replay-<window>.json per window lands here; bench/run.py builds its rows from them.
RESULTS = ROOT / "bench" / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    options = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    for window in WINDOWS:
        args = build_parser().parse_args([str(options.data), "--context-window", str(window)])
        results = asyncio.run(replay_file(args, sys.stderr))
        meta = {
            "file": options.data.name,
            "window": window,
            "sessions": len(results["insert"]),
            "summarizer": LABEL,
        }
        (RESULTS / f"replay-{window // 1000}k.json").write_text(
            json.dumps(as_json(results, meta), indent=2)
        )
        print(as_table(results, meta), end="\n\n")


if __name__ == "__main__":
    main()
