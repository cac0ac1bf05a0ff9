"""Peak memory of `pleat -p` resuming a session of 10,000 messages (50 folds) against one of 100:
`.venv/bin/python bench/headless_memory.py`.

Each run is a fresh process (bench/child_run.py: the kernel's account of its peak resident
memory), interleaved, against the scripted server in its own process. The sessions are
bench/long_session.py's; each run resumes its session, sends one prompt and gets the answer.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from child_run import ChildRun, run_child  # noqa: E402
from cold_start import API_KEY, pleat_command  # noqa: E402
from long_session import folds_for, seed  # noqa: E402
from server_process import serving  # noqa: E402
from tui_results import FLAT_MEMORY_GOAL_RATIO  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "headless_memory.json"
# The sessions compared: the size the goal is set at, and a short one.
MESSAGES, SMALL = 10_000, 100
# Runs of each, interleaved; peak memory varies little from run to run.
REPEATS = 3
# The prompt and the scripted server's answer to anything.
PROMPT, ANSWER = "go on", "hi"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, serving("hi") as url:
        home, workspace = Path(tmp) / "home", Path(tmp) / "ws"
        workspace.mkdir()
        os.environ["PLEAT_HOME"] = str(home)
        ids = {"large": seed(workspace, MESSAGES), "small": seed(workspace, SMALL)}
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
        runs: dict[str, list[ChildRun]] = {name: [] for name in ids}
        for _ in range(REPEATS):
            for name, session_id in ids.items():
                command = [
                    *pleat_command(),
                    *("-p", PROMPT, "--resume", session_id, "--model", "scripted-model"),
                    *("--api-base", url, "--api-key", API_KEY, "--cwd", str(workspace)),
                ]
                run = run_child(command, env=env, cwd=workspace)
                if run.exit_code != 0 or ANSWER not in run.output:
                    raise RuntimeError(f"pleat -p ({name}) failed:\n{run.output[-2000:]}")
                runs[name].append(run)
    large, small = (statistics.median(r.peak_mib for r in runs[n]) for n in ("large", "small"))
    result = {
        "repeats": REPEATS,
        "messages": MESSAGES,
        "folds": folds_for(MESSAGES),
        "small_messages": SMALL,
        "large_mib": large,
        "small_mib": small,
        "ratio": large / small,
        "runs_mib": {n: [round(r.peak_mib, 1) for r in done] for n, done in runs.items()},
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"pleat -p --resume, peak resident memory, median of {REPEATS} fresh processes each")
    print(f"  {MESSAGES:,} messages ({folds_for(MESSAGES)} folds)   {large:7.0f} MiB")
    print(f"  {SMALL:,} messages                 {small:7.0f} MiB")
    print(f"ratio {large / small:.2f}x (goal <= {FLAT_MEMORY_GOAL_RATIO}x)")


if __name__ == "__main__":
    main()
