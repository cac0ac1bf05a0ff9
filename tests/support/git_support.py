"""Real git repositories for the tests: run git in a workspace, make one with a first commit."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(workspace: Path, *args: str) -> str:
    """Run git in `workspace` (failing the test if git fails); its stdout."""
    return subprocess.run(
        ["git", *args], cwd=workspace, capture_output=True, text=True, check=True
    ).stdout


def git_repo(workspace: Path, files: dict[str, bytes] | None = None) -> None:
    """A repository at `workspace` whose first commit holds `files` (default: a README)."""
    git(workspace, "init", "-q")
    git(workspace, "config", "user.email", "dev@example.com")
    git(workspace, "config", "user.name", "dev")
    for name, data in (files or {"README": b"readme\n"}).items():
        (workspace / name).write_bytes(data)
    git(workspace, "add", ".")
    git(workspace, "commit", "-qm", "start")
