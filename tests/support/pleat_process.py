"""Running pleat headless as a real process against the scripted server, as a script would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer

# Seconds a headless run may take: far past any test's run (litellm's import alone is ~4 s), so
# a hang fails the test instead of stalling the suite.
RUN_TIMEOUT_SECONDS = 180


def run_pleat(
    workspace: Path,
    server: ScriptedServer,
    *args: str,
    model: str = TEST_MODEL,
    yes: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`pleat --yes ARGS` (without --yes: `yes=False`) in `workspace`, talking to `server`,
    with `env` added to the environment; no provider key from the developer's environment."""
    return subprocess.run(
        [
            sys.executable, "-m", "tui.main",
            "--model", model,
            "--api-base", server.base_url,
            "--api-key", TEST_API_KEY,
            "--cwd", str(workspace),
            *(["--yes"] if yes else []),
            *args,
        ],
        env={k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")} | (env or {}),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_SECONDS,
    )  # fmt: skip
