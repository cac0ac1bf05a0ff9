"""A local Claude Code marketplace in a temporary directory, listing the sample plugins in
tests/data/plugins (build-kit: a command and agents; context-hook: a
SessionStart hook), as a team would keep one."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.support.constants import REPO_ROOT

SAMPLES = REPO_ROOT / "tests" / "data" / "plugins"
PLUGINS = ("build-kit", "context-hook")
MARKET = "local-market"


def make_market(directory: Path, name: str = MARKET) -> Path:
    """`directory` made a marketplace named `name` holding copies of the sample plugins."""
    (directory / ".claude-plugin").mkdir(parents=True)
    for plugin in PLUGINS:
        shutil.copytree(SAMPLES / plugin, directory / "plugins" / plugin)
    listing = {
        "name": name,
        "owner": {"name": "the team"},
        "plugins": [{"name": p, "source": f"./plugins/{p}"} for p in PLUGINS],
    }
    (directory / ".claude-plugin" / "marketplace.json").write_text(json.dumps(listing))
    return directory


def bare_repository(source: Path, target: Path) -> Path:
    """`source` committed to a new git repository, cloned bare to `target` (a git source with
    no work tree, as a server holds one)."""

    def git(*args: str, cwd: Path) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)

    git("init", "-q", "-b", "main", cwd=source)
    git("add", "-A", cwd=source)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "market", cwd=source)
    git("clone", "-q", "--bare", str(source), str(target), cwd=source)
    return target
