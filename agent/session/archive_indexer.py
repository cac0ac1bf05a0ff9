"""The archive index caught up in the background once a session is open (sessions/index_build.py,
a process of its own at the lowest priority), so the first project search, `/chunks` search or
`/resume` picker finds it current: a first build over a year of sessions reads every journal,
minutes nobody should wait for."""

from __future__ import annotations

import asyncio
import os
import sys
from itertools import islice
from pathlib import Path

import sessions
from sessions.paths import data_home

# Session folders below which no process is started: the open session's own folder and one
# more are read in milliseconds by whichever use comes first.
MIN_SESSIONS = 2
# The variables the indexer keeps from pleat's environment: what Python and the locale need.
# Nothing else (no provider key, no secret of the user's shell) reaches it.
KEPT_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR")


def _sessions_there(root: Path, enough: int) -> bool:
    """At least `enough` entries in the sessions folder (counted no further than that)."""
    try:
        with os.scandir(root) as found:
            return sum(1 for _ in islice(found, enough)) >= enough
    except OSError:
        return False


def indexer_command(home: Path) -> tuple[list[str], dict[str, str]]:
    """The indexer's command line and environment. `-P`: the current folder (the data home,
    private) is not put on the module path, so nothing but pleat's own code is imported."""
    package_root = str(Path(sessions.__file__).resolve().parent.parent)
    env = {name: os.environ[name] for name in KEPT_VARIABLES if name in os.environ}
    env["PYTHONPATH"] = package_root
    command = [sys.executable, "-P", "-m", "sessions.index_build", str(os.getpid()), str(home)]
    return command, env


async def index_in_background() -> int | None:
    """Run the indexer to its end (killed if this is cancelled: the app is leaving); its exit
    code, or None when there was nothing worth starting it for."""
    home = data_home().resolve()  # the child runs in it: a relative path would not do
    if not _sessions_there(home / "sessions", MIN_SESSIONS):
        return None
    command, env = indexer_command(home)
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=home,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        return await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
