"""What the time limit on model-written regexes costs grep: pleat's bounded search of blocks
of lines against Python's `re` searching the same lines one by one, in one run.

The lines are every Python file of this repository, three times over (about 90k lines); each
pattern's best of five runs is kept. Writes results/grep.json.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from sessions.bounded_regex import Deadline, compile_pattern
from tools.line_search import BLOCK_LINES, matching_lines

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "bench" / "results" / "grep.json"
# Everyday patterns: words, a class and a call, alternatives, a rare word.
PATTERNS = (r"def \w+\(", "import", r"(foo|bar)\d+", "TODO|FIXME")
# Copies of the source lines searched: enough for each run to take tens of milliseconds.
COPIES = 3
# Runs per pattern and engine; the best is kept (the least disturbed by the machine).
RUNS = 5


def source_lines() -> list[str]:
    lines: list[str] = []
    for folder in ("agent", "tools", "sessions", "tui", "tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
    return lines * COPIES


def best(run: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    lines = source_lines()
    ratios: dict[str, float] = {}
    for text in PATTERNS:
        plain = re.compile(text)
        bounded = compile_pattern(text, multiline=True)

        def with_re(plain: re.Pattern[str] = plain) -> object:
            return [plain.search(line) for line in lines]

        def with_bounds(bounded: object = bounded) -> object:
            deadline = Deadline()
            return [
                list(matching_lines(bounded, lines[i : i + BLOCK_LINES], deadline))
                for i in range(0, len(lines), BLOCK_LINES)
            ]

        ratios[text] = best(with_bounds) / best(with_re)
        print(f"{text:16} {ratios[text]:.2f}x", flush=True)
    RESULT.write_text(
        json.dumps(
            {
                "lines": len(lines),
                "ratios": ratios,
                "median_ratio": statistics.median(ratios.values()),
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
