"""How long folds hold a turn up, in small and large windows: a headless turn of file steps of
about a second each (as `sleep 1; cat FILE` takes) against the scripted server, each compression
call taking COMPRESSION_SECONDS. The turn is blocked while it waits for a fold (each fold says
how long: the rest of a background fold's call, or the whole of a fold made at the threshold).
The blocked time as a share of the compression calls' own time (folds x COMPRESSION_SECONDS) is 0
when every fold was made while the turn went on. Each case (a window and the bytes a step reads)
runs in a process of its own, the cases side by side (their steps mostly sleep); the 12k case
also runs with instant compression calls and without background folds, for scale. Writes results
JSON; bench/run.py reads it. `.venv/bin/python bench/fold_blocking.py`."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "bench" / "results" / "fold-blocking.json"
# Seconds a compression call takes in the slow runs: the provider (a long summary of a
# big context takes a few seconds).
COMPRESSION_SECONDS = 3.0
# Seconds of each tool step (`sleep` before the read): real work (tests, builds) takes as long.
STEP_SECONDS = 1.0
# Folds each run goes on for (the "at least four"), then the model answers.
FOLDS = 5
# Files the workspace holds: more steps than any case takes for FOLDS folds (an 8k window folds
# every few steps, a 32k one about every 35 with 1 KB steps).
MAX_STEPS = 400
# The cases: (window, bytes a step reads). 1 KB a second is the fast growth, in the small
# windows local models have (8k-32k); 4 KB steps in a 32k window grow faster still; 200-byte
# steps in a 12k window are slow growth (the fold then starts late, and must still be in time).
CASES = ((8_000, 1_000), (12_000, 1_000), (16_000, 1_000), (32_000, 1_000), (32_000, 4_000))
SLOW_CASE = (12_000, 200)
# The case also measured with instant calls and with no background folds (early_fold_at 1).
SCALE_CASE = (12_000, 1_000)
SUMMARY = (
    "<topics>reading files</topics><continues_previous>true</continues_previous>"
    "<summary>\n## Task\nRead every file and report.\n## Done\nRead the files so far.\n</summary>"
)


def file_text(i: int, chars: int) -> str:
    line = f"file {i:03d}: value {i * 7919}, and some filler words to read through; "
    return (line * (chars // len(line) + 1))[:chars] + "\n"


def provider(delay: float) -> Any:
    from tests.support.compaction_agent import is_compression
    from tests.support.scripted_server import Text, ToolCalls

    steps, folds = iter(range(MAX_STEPS)), [0]

    def reply(body: dict[str, Any]) -> Text | ToolCalls:
        if is_compression(body):
            folds[0] += 1
            time.sleep(delay)  # the server's thread waits; the agent's loop does not
            return Text(SUMMARY)
        i = next(steps, None)
        if i is None or folds[0] > FOLDS:  # the last call may be a fold not yet applied
            return Text("All files are read.")
        command = f"sleep {STEP_SECONDS:g}; cat f{i:03d}.txt"
        return ToolCalls([("run_command", {"command": command})])

    return reply


@dataclasses.dataclass
class Run:
    seconds: float
    blocked: float  # seconds the turn waited for folds
    folds: int
    background: int
    largest_request: int
    repairs: int
    steps: int


async def one_run(window: int, chars: int, delay: float, early_fold_at: float = 0.8) -> Run:
    from agent.assemble import build_agent
    from agent.compaction.policy import CompactionPolicy
    from agent.config import Config
    from agent.events import CompactionDone, CompactionStarted, ToolCallFinished, TurnDone
    from agent.permissions.policy import approve_all
    from sessions.store import Session
    from tests.support.constants import TEST_API_KEY, TEST_MODEL
    from tests.support.scripted_server import ScriptedServer

    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        for i in range(MAX_STEPS):
            (workspace / f"f{i:03d}.txt").write_text(file_text(i, chars))
        os.environ["PLEAT_HOME"] = home
        with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}) as server:
            server.context_window = window
            server.fallback = provider(delay)
            config = Config(
                model=TEST_MODEL,
                api_base=server.base_url,
                api_key=TEST_API_KEY,
                max_tool_iterations=MAX_STEPS + 10,
                compaction=CompactionPolicy(context_window=window, early_fold_at=early_fold_at),
            )
            session = Session.create(workspace, model=TEST_MODEL)
            agent = build_agent(config, workspace, approve_all, session=session)
            started = time.monotonic()
            events = [e async for e in agent.run_turn("Read every file, one step at a time.")]
            seconds = time.monotonic() - started
            done = events[-1]
            assert isinstance(done, TurnDone) and done.reason == "answer", events[-3:]
            session.close()
            _, _, notes = Session.resume(session.id)
            largest = max(r.prompt_tokens for r in server.requests)
        starts = [e for e in events if isinstance(e, CompactionStarted)]
        return Run(
            seconds=round(seconds, 2),
            # Each fold says how long the turn waited for it (CompactionDone.waited: a fold made
            # at the threshold, all of it; one begun in the background, the rest of its call).
            blocked=round(sum(e.waited for e in events if isinstance(e, CompactionDone)), 2),
            folds=sum(isinstance(e, CompactionDone) for e in events),
            background=sum(e.background for e in starts),
            largest_request=largest,
            repairs=len(notes),
            steps=sum(isinstance(e, ToolCallFinished) for e in events),
        )


def case_result(window: int, chars: int, *, scale: bool) -> dict[str, Any]:
    """One case's runs, in this process."""
    slow = asyncio.run(one_run(window, chars, COMPRESSION_SECONDS))
    compression_time = slow.folds * COMPRESSION_SECONDS
    result: dict[str, Any] = {
        "window": window,
        "step_bytes": chars,
        "slow": dataclasses.asdict(slow),
        "compression_time": compression_time,
        "blocked_share": round(slow.blocked / compression_time, 3) if compression_time else None,
    }
    if scale:
        instant = asyncio.run(one_run(window, chars, 0.0))
        waiting = asyncio.run(one_run(window, chars, COMPRESSION_SECONDS, early_fold_at=1.0))
        result["instant"] = dataclasses.asdict(instant)
        result["without_background"] = dataclasses.asdict(waiting)
        result["outside_seconds"] = round(slow.seconds - instant.seconds, 2)
    return result


def measure() -> dict[str, Any]:
    """Every case in a process of its own, side by side."""
    cases = [*CASES, SLOW_CASE]
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--case", str(window), str(chars)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for window, chars in cases
    ]
    results = []
    for child in children:
        out, _ = child.communicate()
        if child.returncode:
            raise SystemExit(f"a case failed (exit {child.returncode})")
        results.append(json.loads(out))
    return {
        "compression_seconds": COMPRESSION_SECONDS,
        "step_seconds": STEP_SECONDS,
        "cases": results,
        "worst_blocked_share": max(r["blocked_share"] or 0 for r in results),
        "fewest_folds": min(r["slow"]["folds"] for r in results),
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["--case"]:
        window, chars = int(argv[1]), int(argv[2])
        result = case_result(window, chars, scale=(window, chars) == SCALE_CASE)
        print(json.dumps(result))
        return 0
    results = measure()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    for case in results["cases"]:
        slow = case["slow"]
        print(
            f"{case['window'] // 1000}k, {case['step_bytes']} B steps: folds {slow['folds']} "
            f"({slow['background']} in the background) in {slow['steps']} steps, blocked "
            f"{slow['blocked']} s of {case['compression_time']:g} s of compression calls: "
            f"{case['blocked_share']:.0%}; largest request {slow['largest_request']}; repairs "
            f"{slow['repairs']}"
            + (
                f"; without background folds blocked {case['without_background']['blocked']} s"
                if "without_background" in case
                else ""
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
