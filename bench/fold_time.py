"""Wall time of one fold at 16k and 32k windows against the scripted server:
`.venv/bin/python bench/fold_time.py`.

The real agent (build_agent, a real session on disk) holds a recorded coding session
(bench/data/) up to its fold threshold; `/compact` runs and the clock stops at CompactionDone:
the compression call (the whole history plus pleat's instruction, streamed back as a summary of
the size pleat asks for), the archive written and fsynced, the history rebuilt, the fold
journalled. In process, after a warm-up turn, so that neither the interpreter's start nor
litellm's first call (bench/cold_start.py measures those) is counted as the fold's; the server
runs in a process of its own, as a provider would.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from server_process import serving  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "fold_time.json"
# The windows of the replay comparison (bench/replay_compare.py): 16k folds often, 32k less.
WINDOWS = (16_000, 32_000)
# Folds timed per window, each on a fresh agent and session holding the same history; the
# median is the result.
REPEATS = 5
# The goals. The compression call is most of a fold: the server streams a summary of the size
# pleat asks for (1,200 tokens at 16k, 2,400 at 32k) in 7-character deltas, 700 to 1,400 chunks
# through litellm (0.4 and 0.6-1.0 s on this machine idle, 0.9 and 1.7 s at a load of 6). A
# local model server takes tens of seconds to write such a summary; what the transport and
# pleat add to it stays under 3 s even on a loaded two-core machine.
GOAL_SECONDS = 3.0
# pleat's own steps (the fold less its model call: count, choose the tail, archive and fsync,
# rebuild, journal) are 0.02-0.04 s; a quarter of a second would be a pause a user notices.
GOAL_OWN_SECONDS = 0.25
# The recorded sessions (committed, bench/data/README.md).
DATA = ROOT / "bench" / "data" / "trajectories-dev60.jsonl.gz"
# The scripted server's own rule of thumb (tests/support/scripted_server.py): characters per
# token, to write a summary of the size pleat asks for.
CHARS_PER_TOKEN = 4
API_KEY = "bench-key"


def summary_text(tokens: int) -> str:
    """A reply in the three tags, its summary about `tokens` long."""
    line = "- read src/cache.py: the key is the file hash; store() writes atomically\n"
    body = line * max(1, tokens * CHARS_PER_TOKEN // len(line))
    return (
        "<topics>cache layer, atomic writes</topics><continues_previous>false"
        f"</continues_previous><summary>\n## Task\nFix the cache.\n## Done\n{body}</summary>"
    )


def longest_session() -> list[Any]:
    """The messages of the longest recorded session (system prompt first)."""
    from agent.replay.recorded import read_sessions

    return max((s.messages for s in read_sessions(DATA)), key=len)


def make_agent(url: str, workspace: Path, window: int) -> Any:
    from agent.assemble import build_agent
    from agent.compaction.policy import CompactionPolicy
    from agent.config import Config
    from agent.permissions.policy import approve_all
    from sessions.store import Session

    config = Config(
        model="scripted-model",
        api_base=url,
        api_key=API_KEY,
        compaction=CompactionPolicy(context_window=window),
    )
    session = Session.create(workspace, model="scripted-model")
    return build_agent(config, workspace, approve_all, session=session), session


def fill(agent: Any, recorded: list[Any]) -> None:
    """The recorded session's messages (after its system prompt) up to the fold threshold,
    ending where a fold may (not on a tool call waiting for its result)."""
    compactor = agent.compactor
    trigger = compactor.budget.trigger_tokens
    for message in recorded[1:]:
        agent.add(dataclasses.replace(message, id=""))
        if compactor.tokens.size(agent.history) >= trigger and not message.tool_calls:
            return
    raise RuntimeError("the recorded session is shorter than the window")


async def one_fold(url: str, workspace: Path, window: int, recorded: list[Any]) -> dict[str, Any]:
    from agent.events import CompactionDone, UsageReported

    agent, session = make_agent(url, workspace, window)
    try:
        fill(agent, recorded)
        api_ms = 0
        done: Any = None
        started = time.perf_counter()
        async for event in agent.compact():
            if isinstance(event, UsageReported):
                api_ms += event.usage.api_ms
            done = event
        seconds = time.perf_counter() - started
    finally:
        session.close()
    if not isinstance(done, CompactionDone) or done.tokens_after >= done.tokens_before:
        raise RuntimeError(f"the fold did not happen: {done!r}")
    return {
        "seconds": seconds,
        "model_call_s": api_ms / 1000,
        "tokens_before": done.tokens_before,
        "tokens_after": done.tokens_after,
        "folded_messages": done.folded_messages,
    }


async def warm_up(url: str, workspace: Path) -> None:
    """One ordinary turn: litellm imported, its first call made, the tokenizer loaded."""
    agent, session = make_agent(url, workspace, WINDOWS[0])
    try:
        async for _ in agent.run_turn("hello"):
            pass
    finally:
        session.close()


def measure(window: int, recorded: list[Any], tmp: Path) -> dict[str, Any]:
    from agent.compaction.policy import Budget, CompactionPolicy

    policy = CompactionPolicy(context_window=window)
    summary_tokens = Budget.of(policy, window).summary_cap
    summary = tmp / f"summary-{window}.txt"
    summary.write_text(summary_text(summary_tokens), encoding="utf-8")
    workspace = tmp / f"ws-{window}"
    workspace.mkdir()
    with serving("fold", str(summary)) as url:
        asyncio.run(warm_up(url, workspace))
        runs = [asyncio.run(one_fold(url, workspace, window, recorded)) for _ in range(REPEATS)]
    seconds = [run["seconds"] for run in runs]
    model = [run["model_call_s"] for run in runs]
    return {
        "median_s": statistics.median(seconds),
        "model_call_median_s": statistics.median(model),
        "pleat_own_median_s": statistics.median(s - m for s, m in zip(seconds, model, strict=True)),
        "summary_tokens_asked": summary_tokens,
        "runs": runs,
    }


def main() -> None:
    recorded = longest_session()
    results: dict[str, Any] = {
        "repeats": REPEATS,
        "goal_s": GOAL_SECONDS,
        "goal_own_s": GOAL_OWN_SECONDS,
        "windows": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PLEAT_HOME"] = str(Path(tmp) / "home")
        for window in WINDOWS:
            results["windows"][str(window)] = measure(window, recorded, Path(tmp))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"one fold (/compact at the threshold), median of {REPEATS}, scripted server")
    print(
        f"{'window':>8}{'tokens before':>15}{'after':>8}{'fold s':>9}{'model call s':>14}"
        f"{'pleat s':>9}"
    )
    for window, row in results["windows"].items():
        first = row["runs"][0]
        print(
            f"{int(window):>8,}{first['tokens_before']:>15,}{first['tokens_after']:>8,}"
            f"{row['median_s']:>9.2f}{row['model_call_median_s']:>14.2f}"
            f"{row['pleat_own_median_s']:>9.2f}"
        )
    print(
        f"goals: a fold within {GOAL_SECONDS} s at each window, pleat's own share within "
        f"{GOAL_OWN_SECONDS} s"
    )


if __name__ == "__main__":
    main()
