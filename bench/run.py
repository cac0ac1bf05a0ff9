"""Every benchmark in one command; results land in bench/results/ and README's table is
printed from them: .venv/bin/python bench/run.py"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
# The scripts, in order; the TUI ones measure the terminal UI (each writes its own JSON).
SCRIPTS = (
    "engine_overhead.py",
    "replay_compare.py",
    "tui_startup.py",
    "tui_streaming.py",
    "tui_latency.py",
)


def run(script: str) -> None:
    path = BENCH / script
    if not path.is_file():
        print(f"(skipped {script}: not present)")
        return
    print(f"== {script}", flush=True)
    subprocess.run([sys.executable, str(path)], check=True)


def table() -> str:
    """README's benchmark table: each goal, the measured value, met or not."""
    rows = ["| measure | goal | measured | met |", "| --- | --- | --- | --- |"]

    def add(name: str, goal: str, value: str, met: bool) -> None:
        rows.append(f"| {name} | {goal} | {value} | {'yes' if met else 'no'} |")

    engine = json.loads((RESULTS / "engine.json").read_text())
    for window in ("16k", "32k"):
        report = json.loads((RESULTS / f"replay-{window}.json").read_text())
        totals = {name: s["totals"] for name, s in report["strategies"].items()}
        share = totals["insert"]["compression_cache_share"]
        add(
            f"compression calls served from cache, {window}", ">= 90%", f"{share:.0%}", share >= 0.9
        )
        base = totals["insert"]["billed_on_common"]
        for name in ("separate", "mask", "none"):
            ratio = totals[name]["billed_on_common"] / base
            finished = f"{totals[name]['finished']}/{totals[name]['sessions']}"
            add(
                f"billed input of {name} vs pleat, {window} ({report['common_sessions']} common "
                f"sessions; {name} finished {finished}, pleat {totals['insert']['finished']}/"
                f"{totals['insert']['sessions']})",
                "> 1.00x",
                f"{ratio:.2f}x",
                ratio > 1.0,
            )
    per_turn = engine["per_turn_ms"]["10000"]
    add("per-turn accounting at 10,000 messages", "< 1 ms", f"{per_turn:.3f} ms", per_turn < 1)
    add(
        f"compaction bookkeeping at {engine['bookkeeping_tokens'] // 1000}k tokens",
        "< 50 ms",
        f"{engine['bookkeeping_ms']:.1f} ms",
        engine["bookkeeping_ms"] < 50,
    )
    add(
        "resume, 10,000 messages and 20 chunks",
        "< 0.5 s",
        f"{engine['resume_s']:.3f} s",
        engine["resume_s"] < 0.5,
    )
    tui = RESULTS / "tui.json"
    if tui.is_file():
        for row in json.loads(tui.read_text()).get("rows", []):
            add(row["measure"], row["goal"], row["measured"], bool(row["met"]))
    return "\n".join(rows)


def main() -> None:
    for script in SCRIPTS:
        run(script)
    text = table()
    (RESULTS / "table.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
