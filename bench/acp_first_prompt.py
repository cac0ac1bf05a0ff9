"""An editor's first prompt: `pleat acp` against a local scripted server, driven by the ACP SDK's
client over real pipes: `.venv/bin/python bench/acp_first_prompt.py`.

Each round starts `pleat acp`, initializes, opens a session, and sends a one-line prompt, timed
from request to answer: at once in one round, after a user's typing (TYPING_SECONDS) in the
next, alternating. pleat imports litellm and counts the context in the background once the
session is open, so the prompt sent after typing waits for little of that; the ratio of the two
medians is what the warm-up saves. The handshake (spawn to initialize answered) and a second,
warm prompt are reported beside it.
"""

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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from server_process import serving  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "acp_first_prompt.json"
# Rounds measured of each kind (at once, after typing), alternating, after one untimed (a cold
# disk cache is not pleat's start).
ROUNDS = 4
# Seconds between the session opening and the first prompt: a short sentence typed.
TYPING_SECONDS = 5.0
# The goal: the first prompt after typing within half of the one sent at once (litellm's import,
# about 4 s here, is most of the latter; a warm-up that did not run would leave the two equal).
GOAL_FIRST_PROMPT_RATIO = 0.5
# Any key: the scripted server checks none in this mode, litellm wants one.
API_KEY = "bench-key"


async def one_round(base_url: str, home: Path, workspace: Path, typing: float) -> dict[str, float]:
    from acp import spawn_agent_process
    from acp.schema import TextContentBlock

    class Editor:
        async def session_update(self, **_: object) -> None:
            return None

        async def request_permission(self, **_: object) -> None:
            raise RuntimeError("nothing asks in this benchmark")

    env = {**os.environ, "PLEAT_HOME": str(home), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", "import sys; from tui.main import main; sys.exit(main())"]
    args = ("acp", "--model", "openai/bench", "--api-base", base_url, "--api-key", API_KEY)
    started = time.perf_counter()
    async with spawn_agent_process(
        Editor(), *command, *args, env=env, transport_kwargs={"stderr": subprocess.DEVNULL}
    ) as (conn, _):
        await conn.initialize(protocol_version=1)
        handshake = time.perf_counter() - started
        session = await conn.new_session(cwd=str(workspace))
        await asyncio.sleep(typing)
        times = []
        for _ in range(2):
            sent = time.perf_counter()
            prompt = [TextContentBlock(type="text", text="hello")]
            await conn.prompt(session_id=session.session_id, prompt=prompt)
            times.append(time.perf_counter() - sent)
    return {"handshake": handshake, "first": times[0], "second": times[1]}


async def measure(base_url: str) -> dict[float, list[dict[str, float]]]:
    rounds: dict[float, list[dict[str, float]]] = {0.0: [], TYPING_SECONDS: []}
    for index in range(2 * ROUNDS + 1):
        typing = TYPING_SECONDS if index % 2 else 0.0
        with tempfile.TemporaryDirectory() as tmp:
            home, workspace = Path(tmp) / "home", Path(tmp) / "ws"
            workspace.mkdir()
            result = await one_round(base_url, home, workspace, typing)
        if index:  # the first round warms the disk cache
            rounds[typing].append(result)
    return rounds


def main() -> None:
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    with serving("hi") as base_url:
        rounds = asyncio.run(measure(base_url))
    at_once, typed = rounds[0.0], rounds[TYPING_SECONDS]
    after_typing = statistics.median(r["first"] for r in typed)
    without = statistics.median(r["first"] for r in at_once)
    result = {
        "rounds": len(typed),
        "typing_seconds": TYPING_SECONDS,
        "first_prompt_ratio": after_typing / without,
        "first_prompt_after_typing_s": after_typing,
        "first_prompt_at_once_s": without,
        "warm_prompt_s": statistics.median(r["second"] for r in [*typed, *at_once]),
        "handshake_s": statistics.median(r["handshake"] for r in [*typed, *at_once]),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
