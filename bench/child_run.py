"""One command in a child process, timed and weighed from outside: wall time from spawn to
reaping, and the child's peak resident memory as the kernel accounts it (getrusage of that one
child, through wait4), so nothing in the child has to report anything."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# Bytes in the KiB that Linux reports ru_maxrss in, and in a MiB.
KIB = 1024
MIB = 1024 * 1024


@dataclass(frozen=True)
class ChildRun:
    """What one run of a command took."""

    wall_s: float
    peak_mib: float
    exit_code: int
    output: str  # stdout and stderr together


def run_child(
    command: list[str], *, env: dict[str, str], cwd: Path, stdin: str | None = None
) -> ChildRun:
    """Run `command` to its end; its output goes to a file (a pipe read by this process would
    add our reading to its time)."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out:
        started = time.monotonic()
        child = subprocess.Popen(
            command,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
        if stdin is not None:
            assert child.stdin is not None
            child.stdin.write(stdin)
            child.stdin.close()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        output = out.read()
    return ChildRun(wall, usage.ru_maxrss * KIB / MIB, child.returncode, output)


def bench_env(home: Path, root: Path) -> dict[str, str]:
    """The environment of a bench's pleat processes: this one's, with a private data directory,
    litellm's cost map read locally (as pleat sets it) and pleat's code from `root`."""
    return {
        **os.environ,
        "PLEAT_HOME": str(home),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(root),
    }


def run_interleaved(
    commands: dict[str, list[str]], repeats: int, *, env: dict[str, str], cwd: Path
) -> dict[str, list[ChildRun]]:
    """Each command once per round, `repeats` rounds, so a drift in the machine's load falls on
    all of them alike; raises RuntimeError with the output's end when one fails."""
    runs: dict[str, list[ChildRun]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, command in commands.items():
            run = run_child(command, env=env, cwd=cwd)
            if run.exit_code != 0:
                raise RuntimeError(f"{name} exited {run.exit_code}:\n{run.output[-3000:]}")
            runs[name].append(run)
    return runs
