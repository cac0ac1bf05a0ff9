"""Keypress to screen, 0 / 500 / 2,000 / 10,000 messages (a fold per 200):
`.venv/bin/python bench/tui_latency.py`."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from long_session import folds_for, seed  # noqa: E402
from tui_results import KEY_GOAL_MS, RELAYOUT_GOAL_MS, save  # noqa: E402

# Messages in the session (user and assistant alternating, after the system prompt; a fold per
# 200, bench/long_session.py): the goal is at the last, the others show the trend.
SIZES = (0, 500, 2_000, 10_000)
# Keys timed per size (after a few untimed ones): enough for a stable median and a p95.
KEYS = 60
WARM_UP_KEYS = 5
# The goal at 10,000 messages, for a letter and for a new line: the keypress p95 (issue 32).
GOAL_MS = KEY_GOAL_MS
# Batches of older messages mounted before timing (as if the user had scrolled back), so the
# conversation holds a full window of widgets rather than the few a resume starts with.
LOADS = 2
# Seconds to wait for a key's screen update before calling it lost.
TIMEOUT_SECONDS = 2.0


async def measure(workspace: Path, session_id: str) -> tuple[list[float], list[float], int]:
    """Milliseconds from each key press to the next composed screen update: a letter (the
    prompt repaints), and a new line or its deletion (the prompt changes height: the whole
    screen is laid out again); and the number of widgets mounted in the conversation."""
    from textual.app import App

    from agent.config import Config
    from tui.app import PleatApp

    frames: list[float] = []
    frame_seen = asyncio.Event()
    display = App._display

    def timed_display(self: App[Any], screen: Any, renderable: Any) -> None:
        if renderable is not None:
            frames.append(time.perf_counter())
            frame_seen.set()
        display(self, screen, renderable)

    App._display = timed_display  # type: ignore[method-assign]
    config = Config(model="scripted-model", api_base="http://127.0.0.1:9/v1", api_key="x")
    app = PleatApp(config, workspace, resume=session_id)
    typing: list[float] = []
    relayout: list[float] = []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            while not app.warm:  # opened, litellm imported, the context counted
                await pilot.pause(0.05)
            app.prompt.cursor_blink = False  # its timer's frames are not the key's
            conversation = app.conversation
            for _ in range(LOADS):  # the user scrolled back: the window is full
                await conversation.load_older()
            conversation.scroll_end(animate=False)
            await pilot.pause(0.5)  # laid out

            async def timed(key: str) -> float:
                frames.clear()
                frame_seen.clear()
                started = time.perf_counter()
                await pilot.press(key)
                try:
                    await asyncio.wait_for(frame_seen.wait(), TIMEOUT_SECONDS)
                except TimeoutError:
                    raise RuntimeError(f"pressing {key} reached no screen update") from None
                return (frames[0] - started) * 1000

            for index in range(WARM_UP_KEYS + KEYS):
                letter = await timed("a")
                grow = await timed("ctrl+j")  # the prompt gets a second line
                shrink = await timed("backspace")  # and loses it
                if index >= WARM_UP_KEYS:
                    typing.append(letter)
                    relayout += [grow, shrink]
                if index % 20 == 19:
                    app.prompt.value = ""  # keep the prompt one line long
                    await pilot.pause(0.05)
            mounted = app.conversation.mounted_widgets
    finally:
        App._display = display  # type: ignore[method-assign]
    return typing, relayout, mounted


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def one_size(size: int) -> dict[str, object]:
    """Measure one session size in this process (a fresh one: as when pleat starts)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PLEAT_HOME"] = str(Path(tmp) / "home")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        typing, relayout, mounted = asyncio.run(measure(workspace, seed(workspace, size)))
    return {"typing": typing, "relayout": relayout, "mounted": mounted}


def summary(values: list[float]) -> dict[str, float]:
    return {"median_ms": statistics.median(values), "p95_ms": p95(values), "max_ms": max(values)}


def main() -> None:
    if sys.argv[1:2] == ["--size"]:
        print(json.dumps(one_size(int(sys.argv[2]))))
        return
    results: dict[str, dict[str, float]] = {}
    relayouts: dict[str, dict[str, float]] = {}
    print(f"keypress to screen update, {KEYS} keys per size, 120x40 headless")
    print(
        f"{'messages':>9}{'mounted':>9}{'letter median / p95 ms':>24}"
        f"{'new line (relayout) median / p95 ms':>37}"
    )
    for size in SIZES:
        # Each size in a fresh pleat process, as a user starting it on that session would.
        done = subprocess.run(
            [sys.executable, __file__, "--size", str(size)],
            capture_output=True,
            text=True,
            check=True,
        )
        measured = json.loads(done.stdout.strip().splitlines()[-1])
        row: dict[str, float] = {
            **summary(measured["typing"]),
            "mounted_widgets": measured["mounted"],
        }
        results[str(size)] = row
        relayouts[str(size)] = summary(measured["relayout"])
        letters = f"{row['median_ms']:.1f} / {row['p95_ms']:.1f}"
        lines = f"{relayouts[str(size)]['median_ms']:.1f} / {relayouts[str(size)]['p95_ms']:.1f}"
        print(f"{size:>9,}{measured['mounted']:>9}{letters:>24}{lines:>37}")
    for name, table, goal in (
        ("letter", results, GOAL_MS),
        ("new line", relayouts, RELAYOUT_GOAL_MS),
    ):
        at_goal = table[str(SIZES[-1])]["p95_ms"]
        verdict = "met" if at_goal < goal else f"missed by {at_goal - goal:.1f} ms"
        print(f"goal: {name} p95 < {goal} ms at {SIZES[-1]:,} messages: {verdict}")
    folds = {str(size): folds_for(size) for size in SIZES}
    save(
        "latency",
        {"keys": KEYS, "folds": folds, "by_messages": results, "relayout_by_messages": relayouts},
    )


if __name__ == "__main__":
    main()
