"""Peak memory of the TUI holding 10,000 messages (50 folds) against the same at 100 messages and
against a bare Textual app (and, for scale, `import litellm` alone):
`.venv/bin/python bench/tui_memory.py`.

Each runs in a fresh process, interleaved; its peak resident memory is the kernel's account of
that child (bench/child_run.py). Both apps run headless (`run_test`, 120x40). pleat resumes a
session (bench/long_session.py: a fold per 200 messages), waits until it is warm (litellm imported,
the context counted), then loads two batches of older messages as a user scrolling back would,
so the conversation holds a full window of widgets; the bare app (Header, Input, Footer: the
first-frame comparison's) is mounted and left to settle as long.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from child_run import ChildRun, run_interleaved  # noqa: E402
from tui_results import FLAT_MEMORY_GOAL_RATIO, MEMORY_GOAL_RATIO, save  # noqa: E402

# Messages in the resumed sessions: the size the goals are set at, and a short session that
# memory at that size must stay within FLAT_MEMORY_GOAL_RATIO of.
MESSAGES = 10_000
SMALL = 100
# Runs of each process, interleaved; peak memory varies little from run to run.
REPEATS = 3
# Batches of older messages loaded after the warm-up (as tui_latency.py does).
LOADS = 2
# Seconds each app is left running once ready (a few frames, the cursor's blink).
SETTLE_SECONDS = 0.5
# Seconds between checks that pleat is warm.
POLL_SECONDS = 0.05


async def bare_app() -> None:
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Header, Input

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield Input(placeholder="Ask")
            yield Footer()

    async with Bare().run_test(size=(120, 40)) as pilot:
        await pilot.pause(SETTLE_SECONDS)


async def pleat_app(workspace: Path, session_id: str) -> None:
    from agent.config import Config
    from tui.app import PleatApp

    config = Config(model="scripted-model", api_base="http://127.0.0.1:9/v1", api_key="x")
    app = PleatApp(config, workspace, resume=session_id)
    async with app.run_test(size=(120, 40)) as pilot:
        while not app.warm:
            await pilot.pause(POLL_SECONDS)
        for _ in range(LOADS):
            await app.conversation.load_older()
        await pilot.pause(SETTLE_SECONDS)


def median_mib(runs: list[ChildRun]) -> float:
    return statistics.median(run.peak_mib for run in runs)


def main() -> None:
    if sys.argv[1:2] == ["--bare"]:
        asyncio.run(bare_app())
        return
    if sys.argv[1:2] == ["--pleat"]:
        asyncio.run(pleat_app(Path(sys.argv[2]), sys.argv[3]))
        return
    from long_session import folds_for, seed

    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp) / "home", Path(tmp) / "ws"
        workspace.mkdir()
        os.environ["PLEAT_HOME"] = str(home)
        session_id = seed(workspace, MESSAGES)
        small_id = seed(workspace, SMALL)
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
        commands = {
            "bare": [sys.executable, __file__, "--bare"],
            "pleat": [sys.executable, __file__, "--pleat", str(workspace), session_id],
            "small": [sys.executable, __file__, "--pleat", str(workspace), small_id],
            "litellm": [sys.executable, "-c", "import litellm"],
        }
        runs = run_interleaved(commands, REPEATS, env=env, cwd=workspace)
    bare, pleat, litellm, small = (
        median_mib(runs[name]) for name in ("bare", "pleat", "litellm", "small")
    )
    result: dict[str, Any] = {
        "repeats": REPEATS,
        "messages": MESSAGES,
        "folds": folds_for(MESSAGES),
        "small_messages": SMALL,
        "small_mib": small,
        "flat_ratio": pleat / small,
        "bare_mib": bare,
        "pleat_mib": pleat,
        "litellm_mib": litellm,
        "ratio": pleat / bare,
        "runs_mib": {name: [round(r.peak_mib, 1) for r in done] for name, done in runs.items()},
    }
    print(f"peak resident memory, median of {REPEATS} fresh processes each")
    print(f"  bare Textual app (Header, Input, Footer)   {bare:7.0f} MiB")
    print(f"  pleat holding {MESSAGES:,} messages             {pleat:7.0f} MiB")
    print(f'  python -c "import litellm"                 {litellm:7.0f} MiB')
    print(f"  pleat holding {SMALL:,} messages                 {small:7.0f} MiB")
    print(f"ratio {pleat / bare:.2f}x (goal <= {MEMORY_GOAL_RATIO}x)")
    print(
        f"{MESSAGES:,} / {SMALL:,} messages {pleat / small:.2f}x "
        f"(goal <= {FLAT_MEMORY_GOAL_RATIO}x)"
    )
    save("memory", result)


if __name__ == "__main__":
    main()
