"""Streamed tokens rendered per second by the TUI: `.venv/bin/python bench/tui_streaming.py`."""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from tui_results import save  # noqa: E402

# Runs of each measurement; the median is reported.
REPEATS = 3
# Sections of the reply; each is a heading, a paragraph, a list and a code block (about 190
# tokens), so 60 of them make a reply of about 11k tokens: a long answer, and long enough that
# start-up effects do not dominate.
SECTIONS = 60
# The goal.
GOAL_TOKENS_PER_SECOND = 1_000
MODEL = "scripted-model"

SECTION = """\
## Step {n}: the cache layer

The function `load_{n}()` reads the configuration, checks the **cache key** against the
file hash and returns the parsed value. When the key is stale it rebuilds the entry and
writes it back atomically, so a crash never leaves a half-written file behind.

- keep the key derivation in one place
- never trust an mtime alone: compare the hash
- log the rebuild, with the elapsed time

```python
def load_{n}(path: Path) -> dict:
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    if (cached := CACHE.get(key)) is not None:
        return cached
    value = parse(path.read_text())
    CACHE[key] = value
    return value
```

"""

# The scripted server runs in its own process, like a real provider: in this one it would
# compete with the UI for the interpreter.
SERVER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from scripted_server import ScriptedServer, Text
reply = open(sys.argv[2], encoding="utf-8").read()
def respond(body):
    asked = body["messages"][-1].get("content") or ""
    return Text(reply if "cache layer" in asked else "ok")
with ScriptedServer(fallback=respond) as server:
    print(server.base_url, flush=True)
    sys.stdin.read()
"""


def reply_text() -> str:
    return "".join(SECTION.format(n=n) for n in range(SECTIONS))


async def agent_alone(config, workspace: Path) -> float:  # type: ignore[no-untyped-def]
    """Seconds from the first delta to the end of the turn, no UI."""
    from agent.assemble import build_agent, open_session
    from agent.events import TextDelta
    from agent.permissions import approve_all

    session, history, _ = open_session(config, workspace)
    try:
        agent = build_agent(config, workspace, approve_all, session=session, history=history)
        first: float | None = None
        async for event in agent.run_turn("explain the cache layer"):
            if isinstance(event, TextDelta) and first is None:
                first = time.perf_counter()
        assert first is not None
        return time.perf_counter() - first
    finally:
        session.close()


async def tui(config, workspace: Path) -> float:  # type: ignore[no-untyped-def]
    """Seconds from the first delta written into the reply widget to the end of its final
    Markdown update (run in a fresh process: the app's warm-up then imports litellm and sets
    the collector up as it does for a user)."""
    from tui.app import PleatApp
    from tui.widgets.assistant_message import AssistantMessage
    from tui.widgets.prompt_input import PromptInput

    marks: dict[str, float] = {}
    write, finish = AssistantMessage.write, AssistantMessage.finish

    async def timed_write(self: AssistantMessage, delta: str) -> None:
        marks.setdefault("first", time.perf_counter())
        await write(self, delta)

    async def timed_finish(self: AssistantMessage) -> None:
        await finish(self)
        marks["done"] = time.perf_counter()

    AssistantMessage.write = timed_write  # type: ignore[method-assign]
    AssistantMessage.finish = timed_finish  # type: ignore[method-assign]
    try:
        app = PleatApp(config, workspace)
        async with app.run_test(size=(120, 40)) as pilot:
            while not app.warm:  # opened, litellm imported (as a user would have waited)
                await pilot.pause(0.05)
            # A first short exchange: litellm's first call sets itself up (seconds of one-time
            # work that is not rendering).
            app.query_one(PromptInput).value = "hello"
            await pilot.press("enter")
            while app.turn is None or not app.turn.is_finished:
                await pilot.pause(0.05)
            marks.clear()
            app.query_one(PromptInput).value = "explain the cache layer"
            await pilot.press("enter")
            while "done" not in marks:
                await pilot.pause(0.01)
    finally:
        AssistantMessage.write, AssistantMessage.finish = write, finish  # type: ignore[method-assign]
    return marks["done"] - marks["first"]


def tui_in_a_fresh_process(url: str, home: Path, workspace: Path) -> float:
    done = subprocess.run(
        [sys.executable, __file__, "--tui", url, str(workspace)],
        env={**os.environ, "PLEAT_HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    from agent.config import Config
    from agent.tokens import count_text

    if sys.argv[1:2] == ["--tui"]:
        config = Config(model=MODEL, api_base=sys.argv[2], api_key="x", max_retries=0)
        print(asyncio.run(tui(config, Path(sys.argv[3]))))
        return
    text = reply_text()
    tokens = count_text(text)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ["PLEAT_HOME"] = str(home)
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        reply_file = Path(tmp) / "reply.md"
        reply_file.write_text(text, encoding="utf-8")
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(ROOT / "tests"), str(reply_file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            config = Config(model=MODEL, api_base=url, api_key="x", max_retries=0)
            asyncio.run(agent_alone(config, workspace))  # warm-up: litellm's import
            alone = [asyncio.run(agent_alone(config, workspace)) for _ in range(REPEATS)]
            shown = [tui_in_a_fresh_process(url, home, workspace) for _ in range(REPEATS)]
        finally:
            server.kill()
            server.wait()
    alone_rate = tokens / statistics.median(alone)
    tui_rate = tokens / statistics.median(shown)
    print(f"a reply of {tokens:,} tokens ({len(text):,} characters), median of {REPEATS} runs")
    print(f"{'consumer':<34}{'seconds':>9}{'tokens/s':>11}")
    print(f"{'agent alone (no UI)':<34}{statistics.median(alone):>9.2f}{alone_rate:>11,.0f}")
    print(f"{'TUI (until the last update)':<34}{statistics.median(shown):>9.2f}{tui_rate:>11,.0f}")
    verdict = "met" if tui_rate >= GOAL_TOKENS_PER_SECOND else "missed"
    print(f"goal >= {GOAL_TOKENS_PER_SECOND:,} tokens/s: {verdict}")
    save(
        "streaming",
        {
            "tokens": tokens,
            "repeats": REPEATS,
            "agent_seconds": alone,
            "tui_seconds": shown,
            "agent_tokens_per_s": alone_rate,
            "tui_tokens_per_s": tui_rate,
        },
    )


if __name__ == "__main__":
    main()
