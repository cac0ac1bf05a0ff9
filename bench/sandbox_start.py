"""What the sandbox adds to the start of a command: `sh -c true` unconfined against the same
command through the sandbox's launcher (workspace-write), interleaved in one run:
`.venv/bin/python bench/sandbox_start.py`. Writes results/sandbox_start.json.

The launcher is a Python interpreter started with -I -S that applies Landlock, the namespaces
and the seccomp filter, then execs the command: its cost is paid once per command, whatever the
command does after.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.sandbox.policy import Sandbox  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "sandbox_start.json"
# Interleaved pairs: enough for a stable median on a busy two-core machine (one pair takes
# about 30 ms).
PAIRS = 41
# The goal: a command a model runs should not feel slower confined. 50 ms is below what a person
# notices between an approval and the output, and about a tenth of a typical `pytest -q` start.
GOAL_ADDED_MS = 50.0
COMMAND = ["/bin/sh", "-c", "true"]


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, env=env)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        sandbox = Sandbox(mode="workspace-write", workspace=Path(workspace))
        if not sandbox.active:
            raise SystemExit(f"this machine cannot enforce the sandbox: {sandbox.describe()}")
        env = sandbox.environment({"PATH": "/usr/bin:/bin"})
        confined_argv = sandbox.argv(COMMAND)
        plain, confined = [], []
        for _ in range(PAIRS):
            plain.append(timed(COMMAND))
            confined.append(timed(confined_argv, env))
    result = {
        "pairs": PAIRS,
        "plain_ms": statistics.median(plain),
        "confined_ms": statistics.median(confined),
        "added_ms": statistics.median(c - p for c, p in zip(confined, plain, strict=True)),
    }
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
