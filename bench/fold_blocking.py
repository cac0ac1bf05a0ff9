"""How long folds hold a turn up: a headless turn of file steps of about a second each (as `sleep
1; cat FILE` takes) against the scripted server, with each compression call taking
COMPRESSION_SECONDS. The turn is blocked while it waits for a fold (each fold says how long: the
rest of a background fold's call, or the whole of a fold made at the threshold). The blocked
time as a share of the compression calls' own time (folds x COMPRESSION_SECONDS) is 0 when every
fold was made while the turn went on. The same turn with instant compression calls runs too, in
the same run: its wall time against the slow run's is the same figure measured from outside
(noisier on a busy machine). Writes results JSON; bench/run.py reads it."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.assemble import build_agent  # noqa: E402
from agent.compaction.policy import CompactionPolicy  # noqa: E402
from agent.config import Config  # noqa: E402
from agent.events import CompactionDone, CompactionStarted, TurnDone  # noqa: E402
from agent.permissions.policy import approve_all  # noqa: E402
from sessions.store import Session  # noqa: E402
from tests.support.compaction_agent import is_compression  # noqa: E402
from tests.support.constants import TEST_API_KEY, TEST_MODEL  # noqa: E402
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "fold-blocking.json"
# Seconds a compression call takes in the slow run: the provider (a long summary of a
# big context takes a few seconds).
COMPRESSION_SECONDS = 3.0
# Seconds of each tool step (`sleep` before the read): real work (tests, builds) takes as long.
STEP_SECONDS = 1.0
# A 32k window: a step adds about 1k tokens, so the background fold (started at early_fold_at of
# the threshold, about 3,800 tokens before it) has three to four steps to run beside.
WINDOW = 32_000
# Steps in the turn: enough for at least four folds in this window (one per dozen steps).
STEPS = 56
# Characters of each file read: about a thousand tokens as the scripted provider counts them.
FILE_CHARS = 4_000
SUMMARY = (
    "<topics>reading files</topics><continues_previous>true</continues_previous>"
    "<summary>\n## Task\nRead every file and report.\n## Done\nRead the files so far.\n</summary>"
)


def file_text(i: int) -> str:
    line = f"file {i:03d}: value {i * 7919}, and some filler words to read through; "
    return (line * (FILE_CHARS // len(line) + 1))[:FILE_CHARS] + "\n"


def provider(delay: float) -> Any:
    steps = iter(range(STEPS))

    def reply(body: dict[str, Any]) -> Text | ToolCalls:
        if is_compression(body):
            time.sleep(delay)  # the server's thread waits; the agent's loop does not
            return Text(SUMMARY)
        i = next(steps, None)
        if i is None:
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


async def one_run(delay: float, early_fold_at: float = 0.8) -> Run:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        for i in range(STEPS):
            (workspace / f"f{i:03d}.txt").write_text(file_text(i))
        os.environ["PLEAT_HOME"] = home
        with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}) as server:
            server.context_window = WINDOW
            server.fallback = provider(delay)
            config = Config(
                model=TEST_MODEL,
                api_base=server.base_url,
                api_key=TEST_API_KEY,
                max_tool_iterations=STEPS + 10,
                compaction=CompactionPolicy(context_window=WINDOW, early_fold_at=early_fold_at),
            )
            session = Session.create(workspace, model=TEST_MODEL)
            agent = build_agent(config, workspace, approve_all, session=session)
            started = time.monotonic()
            timed = [
                (time.monotonic(), e)
                async for e in agent.run_turn("Read every file, one step at a time.")
            ]
            seconds = time.monotonic() - started
            events = [e for _, e in timed]
            done = events[-1]
            assert isinstance(done, TurnDone) and done.reason == "answer", events[-3:]
            session.close()
            _, _, notes = Session.resume(session.id)
            largest = max(r.prompt_tokens for r in server.requests)
        starts = [e for e in events if isinstance(e, CompactionStarted)]
        return Run(
            seconds=seconds,
            blocked=blocked_time(timed),
            folds=sum(isinstance(e, CompactionDone) for e in events),
            background=sum(e.background for e in starts),
            largest_request=largest,
            repairs=len(notes),
        )


def blocked_time(timed: list[tuple[float, Any]]) -> float:
    """Seconds the turn waited for folds, as each fold says (CompactionDone.waited: a fold made
    at the threshold, all of it; one begun in the background, the rest of its call)."""
    return sum(event.waited for _, event in timed if isinstance(event, CompactionDone))


async def measure() -> dict[str, Any]:
    instant = await one_run(0.0)
    slow = await one_run(COMPRESSION_SECONDS)
    waiting = await one_run(COMPRESSION_SECONDS, early_fold_at=1.0)  # no background folds
    compression_time = slow.folds * COMPRESSION_SECONDS
    blocked = slow.blocked
    return {
        "outside_seconds": round(slow.seconds - instant.seconds, 2),
        "without_background": dataclasses.asdict(waiting),
        "compression_seconds": COMPRESSION_SECONDS,
        "step_seconds": STEP_SECONDS,
        "window": WINDOW,
        "instant": dataclasses.asdict(instant),
        "slow": dataclasses.asdict(slow),
        "blocked_seconds": round(blocked, 2),
        "compression_time": compression_time,
        "blocked_share": round(blocked / compression_time, 3) if compression_time else None,
    }


def main() -> int:
    results = asyncio.run(measure())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    share = results["blocked_share"]
    slow = results["slow"]
    print(
        f"folds {slow['folds']} ({slow['background']} begun in the background), blocked "
        f"{results['blocked_seconds']} s of {results['compression_time']} s of compression "
        f"calls: {share if share is None else f'{share:.0%}'}; largest request "
        f"{slow['largest_request']} of {WINDOW}; repairs on resume {slow['repairs']}; "
        f"wall time against instant calls {results['outside_seconds']:+} s; without background "
        f"folds blocked {results['without_background']['blocked']:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
