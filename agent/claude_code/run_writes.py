"""Which of a project's run-shaping files changed while pleat ran: a sandboxed command may write a
project's `.claude/settings.json`, `.claude/settings.local.json` and `.mcp.json`, and `--yes`
(which approves a project's files for a headless run) must not approve what such a command
planted in an earlier run (found by review). pleat notes each file's content as a run starts;
as it ends, a file whose content changed meanwhile is kept here with the digest of its new
content, and `--yes` leaves a file with exactly that content waiting for the user's approval in
the terminal UI, where its whole content is shown. A file the user edits afterwards by hand has
another content, and `--yes` approves it again.
"""

from __future__ import annotations

from pathlib import Path

from agent.claude_code.settings_file import file_digest
from sessions.approvals import Approvals
from tools.paths import workspace_root

# The files, relative to the workspace root, that make pleat run or trust something.
WATCHED = (".claude/settings.json", ".claude/settings.local.json", ".mcp.json")
# Where the contents written during a run are kept, under $PLEAT_HOME: file -> digest.
RUN_WRITTEN = Approvals("written-during-runs.json")
# Bytes of a watched file hashed at most: each is read bounded by its own reader at 1 MiB.
MAX_BYTES = 4 * 1024 * 1024


def content_digest(path: Path) -> str:
    """The SHA-256 of a watched file's bytes, or "" when there is none (never blocks)."""
    return file_digest(path, MAX_BYTES)


def snapshot(workspace: Path) -> dict[str, str]:
    """The watched files' contents as a run starts: path -> digest ("" when missing)."""
    root = workspace_root(workspace)
    return {str(root / name): content_digest(root / name) for name in WATCHED}


def record_run_writes(before: dict[str, str]) -> None:
    """As a run ends: keep each watched file whose content changed since `before`. Never
    raises (a store that cannot be written leaves --yes as it was)."""
    for path, digest in before.items():
        now = content_digest(Path(path))
        if now and now != digest:
            try:
                RUN_WRITTEN.approve(path, now)
            except OSError:
                continue


def written_by_a_run(path: Path | str) -> bool:
    """Whether the file's content is what it was when a run that changed it ended."""
    now = content_digest(Path(path))
    return bool(now) and RUN_WRITTEN.approved(str(path), now)
