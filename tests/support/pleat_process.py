"""Running pleat headless against the scripted server, as a script would: in this process (most
tests: tests/support/in_process.py) or as a real process (what a process is needed for)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.constants import REPO_ROOT, TEST_API_KEY, TEST_MODEL
from tests.support.in_process import RUN_TIMEOUT_SECONDS, run_entry_point
from tests.support.scripted_server import ScriptedServer

# The command that starts pleat as a process: its entry point, with this checkout's code.
PLEAT = (sys.executable, "-m", "tui.main")


def headless_args(
    workspace: Path, server: ScriptedServer, *args: str, model: str = TEST_MODEL, yes: bool = True
) -> list[str]:
    """pleat's arguments for a run in `workspace` against `server` (with --yes unless `yes` is
    False), then `args`."""
    return [
        "--model", model,
        "--api-base", server.base_url,
        "--api-key", TEST_API_KEY,
        "--cwd", str(workspace),
        *(["--yes"] if yes else []),
        *args,
    ]  # fmt: skip


def environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without provider keys (the developer's never reach a run),
    with `env` added."""
    return {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")} | (env or {})


def process_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """environment(env) for a process of pleat's: this checkout's code on its path, whatever its
    working directory (an installed pleat elsewhere, or another checkout's, must not answer)."""
    return environment(env) | {"PYTHONPATH": str(REPO_ROOT)}


def pleat(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`pleat ARGS` in this process, in `cwd`, with `env` added to the environment (without
    provider keys): its exit code, stdout and stderr as a process would give them."""
    return run_entry_point(args, env=environment(env), cwd=cwd)


def pleat_bytes(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """pleat, its stdout and stderr the bytes it wrote (no decoding, no newline translation)."""
    return run_entry_point(args, env=environment(env), cwd=cwd, text=False)


def pleat_process(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = RUN_TIMEOUT_SECONDS,
) -> subprocess.CompletedProcess[str]:
    """`pleat ARGS` as a real process (the module the console script runs), for tests about the
    process itself."""
    return subprocess.run(
        [*PLEAT, *args],
        env=process_environment(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_pleat(
    workspace: Path,
    server: ScriptedServer,
    *args: str,
    model: str = TEST_MODEL,
    yes: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`pleat --yes ARGS` (without --yes: `yes=False`) in `workspace`, talking to `server`,
    with `env` added to the environment; no provider key from the developer's environment. Run
    in this process: the exit code, stdout and stderr as a process would give them."""
    return pleat(*headless_args(workspace, server, *args, model=model, yes=yes), env=env)


def run_pleat_process(
    workspace: Path,
    server: ScriptedServer,
    *args: str,
    model: str = TEST_MODEL,
    yes: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """run_pleat as a real process, for tests about the process itself."""
    return pleat_process(*headless_args(workspace, server, *args, model=model, yes=yes), env=env)
