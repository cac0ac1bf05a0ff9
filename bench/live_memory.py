"""Peak memory of one pleat process whose session grows live to 10,000 messages with 50 folds,
against the same process at 100 messages: `.venv/bin/python bench/live_memory.py [MESSAGES]`
(MESSAGES: a shorter trial than 10,000; the TUI's 10,000 take about 20 minutes on 2 cores).

bench/headless_memory.py and tui_memory.py measure a resumed session (a resume loads only what
follows the last fold); this measures a pleat left open all day. Headless: the real Agent
(agent/assemble.py build_agent) runs turns against the scripted server in its own process
(bench/server_process.py, fold mode) and folds every MESSAGES_PER_FOLD messages with /compact's
path (Agent.compact), so the journal, recorder, usage, checkpoints and history see every message.
TUI: the app headless (run_test) with its own session and agent against the same server, each
prompt sent as Enter sends it and /compact every MESSAGES_PER_FOLD messages, so the replies
stream into the conversation through the turn's worker as a user's do. The server answers every
turn with a typical reply (long_session.REPLY: a paragraph, a list, a code block).
Each run is a fresh process (bench/child_run.py: the kernel's peak resident memory), interleaved.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from child_run import bench_env, run_interleaved  # noqa: E402
from long_session import MESSAGES_PER_FOLD, REPLY, folds_for  # noqa: E402
from server_process import serving  # noqa: E402
from tui_results import FLAT_MEMORY_GOAL_RATIO  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "live-memory.json"
# The session lengths compared: the size the goal is set at, and a short one.
MESSAGES, SMALL = 10_000, 100
# Runs of each (the 10,000-message runs take minutes); peak memory varies little run to run.
REPEATS = 1
# Turns between the TUI's pauses for a frame (as a user's session draws as it goes).
TUI_PAUSE_EVERY = 10
# Seconds the app is left running at the end (a few frames).
SETTLE_SECONDS = 0.5
# What the scripted server answers a compression request with: a short summary, each fold its
# own chunk (50 chunks at 10,000 messages).
SUMMARY = (
    "<topics>cache work</topics><continues_previous>false</continues_previous>"
    "<summary>\n## Task\nThe cache work.\n## Done\nHashing by file, atomic stores.\n</summary>"
)


async def headless(url: str, workspace: Path, messages: int) -> None:
    """Turns of one question and REPLY each until `messages` messages, a fold every
    MESSAGES_PER_FOLD; exits nonzero if a fold did not happen."""
    from agent.assemble import build_agent
    from agent.config import Config
    from agent.events import CompactionDone
    from agent.permissions.policy import Decision
    from sessions.store import Session

    async def approve(request: object) -> Decision:
        raise AssertionError("no tool is called")

    config = Config(model="scripted-model", api_base=url, api_key="sk-bench")
    session = Session.create(workspace, model="scripted-model")
    agent = build_agent(config, workspace, approve, session=session)
    folds = 0
    try:
        for n in range(messages // 2):
            async for _event in agent.run_turn(f"question {n}?"):
                pass
            if (2 * n + 2) % MESSAGES_PER_FOLD == 0:
                async for event in agent.compact():
                    folds += isinstance(event, CompactionDone)
    finally:
        session.close()
    if folds != folds_for(messages):
        raise SystemExit(f"{folds} folds, expected {folds_for(messages)}")
    print(f"history {len(agent.history)} messages after {folds} folds")


async def tui(url: str, workspace: Path, messages: int) -> None:
    """The app headless with its own session and agent, sent `messages // 2` prompts as Enter
    sends them (PromptInput.Submitted: the turn's worker streams the reply into the
    conversation) and /compact every MESSAGES_PER_FOLD messages; exits nonzero if a fold did not
    happen."""
    from agent.config import Config
    from agent.conversation.entries import FoldEntry
    from tui.app import PleatApp
    from tui.widgets.prompt_input import PromptInput

    config = Config(model="scripted-model", api_base=url, api_key="sk-bench")
    app = PleatApp(config, workspace)

    async def send(text: str) -> None:
        before = app.turn
        await app.on_prompt_input_submitted(PromptInput.Submitted(text))
        if app.quiet_command is not None:  # a slash command starts its work from a worker
            await app.quiet_command.wait()
        if app.turn is not None and app.turn is not before:
            await app.turn.wait()

    async with app.run_test(size=(120, 40)) as pilot:
        await app.opened.wait()
        agent = app.agent
        if agent is None:
            raise SystemExit(f"no agent: {app.unavailable}")
        for n in range(messages // 2):
            await send(f"question {n}?")
            if (2 * n + 2) % MESSAGES_PER_FOLD == 0:
                await send("/compact")
            if n % TUI_PAUSE_EVERY == 0:
                await pilot.pause()
        await pilot.pause(SETTLE_SECONDS)
        conversation = app.conversation
        folds = sum(isinstance(e, FoldEntry) and e.state == "done" for e in conversation.entries)
        if folds != folds_for(messages):
            raise SystemExit(f"{folds} folds, expected {folds_for(messages)}")
        print(
            f"history {len(agent.history)} messages after {folds} folds;"
            f" entries {len(conversation.entries)}, mounted {conversation.mounted_count}"
        )


def main() -> None:
    if sys.argv[1:2] == ["--headless"]:
        asyncio.run(headless(sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])))
        return
    if sys.argv[1:2] == ["--tui"]:
        asyncio.run(tui(sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])))
        return
    messages = int(sys.argv[1]) if sys.argv[1:] else MESSAGES
    with tempfile.TemporaryDirectory() as tmp:
        summary = Path(tmp) / "summary.txt"
        summary.write_text(SUMMARY, encoding="utf-8")
        reply = Path(tmp) / "reply.txt"
        reply.write_text(REPLY, encoding="utf-8")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        env = bench_env(Path(tmp) / "home", ROOT)
        with serving("fold", str(summary), str(reply)) as url:
            commands = {
                f"{kind}_{name}": [
                    sys.executable,
                    __file__,
                    f"--{kind}",
                    url,
                    str(workspace),
                    str(count),
                ]
                for kind in ("headless", "tui")
                for name, count in (("large", messages), ("small", SMALL))
            }
            runs = run_interleaved(commands, REPEATS, env=env, cwd=workspace)
    mib = {name: statistics.median(r.peak_mib for r in done) for name, done in runs.items()}
    result: dict[str, object] = {
        "repeats": REPEATS,
        "messages": messages,
        "folds": folds_for(messages),
        "small_messages": SMALL,
        **{f"{name}_mib": value for name, value in mib.items()},
        "headless_ratio": mib["headless_large"] / mib["headless_small"],
        "tui_ratio": mib["tui_large"] / mib["tui_small"],
        "runs_mib": {n: [round(r.peak_mib, 1) for r in done] for n, done in runs.items()},
        "runs_s": {n: [round(r.wall_s, 1) for r in done] for n, done in runs.items()},
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"one process growing live, peak resident memory, median of {REPEATS} runs each")
    for kind in ("headless", "tui"):
        large, small = mib[f"{kind}_large"], mib[f"{kind}_small"]
        print(
            f"  {kind:8} {messages:,} messages ({folds_for(messages)} folds) {large:5.0f} MiB,"
            f" {SMALL} messages {small:5.0f} MiB: {large / small:.2f}x"
            f" (goal <= {FLAT_MEMORY_GOAL_RATIO}x)"
        )


if __name__ == "__main__":
    main()
