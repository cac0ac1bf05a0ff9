"""Headless cold start and peak memory: `pleat -p hello` against a local scripted server, and
`python -c "import litellm"`, interleaved in one run: `.venv/bin/python bench/cold_start.py`.

Both are whole processes timed from outside (spawn to reaping, bench/child_run.py), with the
same environment (LITELLM_LOCAL_MODEL_COST_MAP=True, as pleat sets it). The pleat run is what a
user's first `pleat -p` does: start the interpreter, import pleat and litellm, open a session,
build the agent, count the context, make one model call, stream the reply, close the session.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from child_run import ChildRun, bench_env, run_child  # noqa: E402
from server_process import serving  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "cold_start.json"
# Pairs measured, after one untimed run of each (a cold disk cache is not pleat's start): the
# two alternate, one pair A-B and the next B-A, so a drift in the machine's load falls on both;
# the ratio is the median of the pairs' ratios.
PAIRS = 9
# The goals. Cold start: within 1.2x the import of litellm alone (issue 24), the one part pleat
# cannot make faster; the rest (the interpreter, pleat's own imports, litellm's first call, the
# session, the exit) must stay within a fifth of it.
GOAL_COLD_START_RATIO = 1.2
# Memory: within 1.5x litellm's import (172 MiB here). On top of it this run holds what
# litellm's first call loads (its own cl100k_base tokenizer for its cost log, the OpenAI
# client: about 55 MiB, 1.32x) and pleat's modules and session (a few MiB); pleat's own
# tokenizer (o200k_base, 75 MiB) is not loaded while a context is far below its threshold
# (agent/model/tokens.py, size_at_most). The goal leaves about 30 MiB: a run that loads a
# tokenizer it does not need, or a second copy of anything, misses it.
GOAL_PEAK_RATIO = 1.5
# The prompt and the model's answer (the scripted server says "hi" to anything).
PROMPT, ANSWER = "hello", "hi"
# Any key: the scripted server checks none in this mode, litellm wants one.
API_KEY = "bench-key"


def pleat_command() -> list[str]:
    """The console script a user runs, beside this interpreter (an installed clone)."""
    script = Path(sys.executable).with_name("pleat")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from tui.main import main; sys.exit(main())"]


def checked(run: ChildRun, what: str) -> ChildRun:
    if run.exit_code != 0:
        raise RuntimeError(f"{what} exited {run.exit_code}:\n{run.output[-2000:]}")
    return run


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, serving("hi") as url:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        env = bench_env(Path(tmp) / "home", ROOT)
        pleat = [
            *pleat_command(),
            *("-p", PROMPT, "--model", "scripted-model", "--api-base", url),
            *("--api-key", API_KEY, "--cwd", str(workspace)),
        ]
        bare = [sys.executable, "-c", "import litellm"]

        def run_pleat() -> ChildRun:
            run = checked(run_child(pleat, env=env, cwd=workspace), "pleat -p")
            if ANSWER not in run.output:
                raise RuntimeError(f"pleat -p did not answer {ANSWER!r}:\n{run.output[-2000:]}")
            return run

        def run_bare() -> ChildRun:
            return checked(run_child(bare, env=env, cwd=workspace), "import litellm")

        load = os.getloadavg()[0]
        run_bare(), run_pleat()  # untimed: the disk cache warmed for both
        pleat_runs: list[ChildRun] = []
        bare_runs: list[ChildRun] = []
        for pair in range(PAIRS):
            if pair % 2 == 0:
                pleat_runs.append(run_pleat())
                bare_runs.append(run_bare())
            else:
                bare_runs.append(run_bare())
                pleat_runs.append(run_pleat())
            print(
                f"pair {pair + 1}/{PAIRS}: pleat -p {pleat_runs[-1].wall_s:.2f} s, "
                f"import litellm {bare_runs[-1].wall_s:.2f} s",
                file=sys.stderr,
                flush=True,
            )
    ratios = [p.wall_s / b.wall_s for p, b in zip(pleat_runs, bare_runs, strict=True)]
    peak_ratios = [p.peak_mib / b.peak_mib for p, b in zip(pleat_runs, bare_runs, strict=True)]
    result = {
        "pairs": PAIRS,
        "load_average_before": round(load, 2),
        "pleat_s": statistics.median(r.wall_s for r in pleat_runs),
        "litellm_s": statistics.median(r.wall_s for r in bare_runs),
        "ratio": statistics.median(ratios),
        "pair_ratios": [round(r, 3) for r in ratios],
        "pleat_runs_s": [round(r.wall_s, 3) for r in pleat_runs],
        "litellm_runs_s": [round(r.wall_s, 3) for r in bare_runs],
        "pleat_peak_mib": statistics.median(r.peak_mib for r in pleat_runs),
        "litellm_peak_mib": statistics.median(r.peak_mib for r in bare_runs),
        "peak_ratio": statistics.median(peak_ratios),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"headless cold start, {PAIRS} interleaved pairs (load average {load:.1f} before)")
    print(f"{'':<30}{'median s':>10}{'min s':>8}{'max s':>8}{'peak MiB':>10}")
    for name, runs in (("pleat -p hello", pleat_runs), ('python -c "import litellm"', bare_runs)):
        walls = [r.wall_s for r in runs]
        peak = statistics.median(r.peak_mib for r in runs)
        print(
            f"{name:<30}{statistics.median(walls):>10.2f}{min(walls):>8.2f}{max(walls):>8.2f}"
            f"{peak:>10.0f}"
        )
    print(
        f"cold start {result['ratio']:.2f}x (goal <= {GOAL_COLD_START_RATIO}x); "
        f"peak memory {result['peak_ratio']:.2f}x (goal <= {GOAL_PEAK_RATIO}x)"
    )


if __name__ == "__main__":
    main()
