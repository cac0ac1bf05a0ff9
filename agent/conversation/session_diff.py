"""/diff: what this session changed in the workspace, from its checkpoints, without a model call.

Each file a checkpoint covers (sessions/lineage.py: what write_file and edit_file wrote, what a
command changed in a git workspace) is compared as it was before the session first changed it
(the kept content: the session's store, or a git snapshot's blob) with what is there now, as a
unified diff. Turns an /undo or /rewind took back are not counted (their checkpoints are gone
from the lineage). What a command changed outside git is not known, and the diff says so.
Blocking (reads the journal and the workspace): call it in a worker thread.
"""

from __future__ import annotations

import asyncio
import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path

from agent.turn.loop import Agent
from sessions.checkpoint_store import CheckpointMissing, CheckpointStore
from sessions.journal import JOURNAL_NAME, replay_journal
from sessions.lineage import FileChange
from sessions.store import Session
from tools.base import ToolError
from tools.file_restore import current
from tools.git_snapshots import GitSnapshotError, GitSnapshots

# Lines of diff shown at most: a session that rewrote a generated file of 100,000 lines shows
# its first 2,000 and says how many more; the rest is in the files themselves (and `git diff`).
MAX_DIFF_LINES = 2_000
# Lines a side of one file may have to be diffed here: difflib's time grows with the square of
# the changed lines (12,000 lines took 6.6 s, and a stop signal waits for it); a longer file is
# said changed with its line counts, and `git diff` shows it.
MAX_DIFFED_LINES = 5_000
# Said when nothing this session did is left in the workspace.
NO_CHANGES = "this session has changed no file (or its changes were undone)"


@dataclass
class SessionDiff:
    """The unified diff of the session's changes, its files, and notes on what it cannot show."""

    diff: str = ""
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The diff then its notes, or NO_CHANGES."""
        notes = "\n".join(f"note: {note}" for note in self.notes)
        if not self.files:
            return "\n".join(filter(None, [NO_CHANGES, notes]))
        return "\n".join(filter(None, [self.diff.rstrip("\n"), notes]))


def _lines(data: bytes | None) -> list[str] | None:
    """The text lines of a file's bytes (None: no file, []), or None when it is not text."""
    if data is None:
        return []
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def _before(change: FileChange, store: CheckpointStore, git: GitSnapshots | None) -> bytes | None:
    """The bytes the file had before the session changed it (None: it did not exist). Raises
    CheckpointMissing or GitSnapshotError."""
    if change.before is None:
        return None
    if change.before.startswith("git:"):
        if git is None:
            raise GitSnapshotError("the workspace is no longer a git repository")
        return git.read(change.before.removeprefix("git:"))
    return store.get(change.before)


def quoted_path(path: str) -> str:
    """A path as one line of a diff: quoted with escapes, as git does, when it holds a control
    character, a quote or a backslash (a newline in a name forged header lines; found by
    review)."""
    if any(ord(c) < 32 or c in '"\\' or 127 <= ord(c) < 160 for c in path):
        return json.dumps(path, ensure_ascii=False)
    return path


def file_diff(path: str, old: bytes | None, new: bytes | None, *, whole: bool) -> str | None:
    """The unified diff of one file (None: unchanged); with `whole` false, or for a side past
    MAX_DIFFED_LINES, one line saying it changed."""
    if old == new:
        return None
    name = quoted_path(path)
    old_lines, new_lines = _lines(old), _lines(new)
    if old_lines is None or new_lines is None:
        return f"Binary file {name} changed\n"
    if not whole or max(len(old_lines), len(new_lines)) > MAX_DIFFED_LINES:
        return f"File {name} changed: {len(old_lines):,} -> {len(new_lines):,} lines (not diffed)\n"
    fromfile = "/dev/null" if old is None else f"a/{name}"
    tofile = "/dev/null" if new is None else f"b/{name}"
    lines = difflib.unified_diff(old_lines, new_lines, fromfile, tofile)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def session_diff(
    journal: Path,
    workspace: Path,
    store: CheckpointStore,
    git: GitSnapshots | None,
    extra_roots: tuple[Path, ...] = (),
) -> SessionDiff:
    """The session's changes, as the journal's checkpoints and the workspace now say."""
    lineage = replay_journal(journal).lineage
    result = SessionDiff()
    first: dict[str, FileChange] = {}
    for point in lineage.checkpoints:
        if point.uncovered is not None and point.uncovered not in result.notes:
            result.notes.append(point.uncovered)
        for change in point.files:
            first.setdefault(change.path, change)
    pieces: list[str] = []
    for path in sorted(first):
        change = first[path]
        if change.withheld:
            kept = "its old content held a key, which pleat never keeps"
            result.notes.append(f"{quoted_path(path)}: {kept}")
            continue
        try:
            old = _before(change, store, git)
            now = current(workspace, path, extra_roots)
        except (CheckpointMissing, GitSnapshotError, ToolError) as error:
            result.notes.append(f"{quoted_path(path)}: {error}")
            continue
        if now.kind in ("dir", "other"):
            result.notes.append(
                f"{quoted_path(path)}: now a {'directory' if now.kind == 'dir' else 'special file'}"
            )
            continue
        shown = sum(piece.count("\n") for piece in pieces)
        new = None if now.kind == "missing" else now.data
        piece = file_diff(path, old, new, whole=shown < MAX_DIFF_LINES)
        if piece is not None:
            pieces.append(piece)
            result.files.append(quoted_path(path))
    lines = "".join(pieces).splitlines(keepends=True)
    result.diff = "".join(lines[:MAX_DIFF_LINES])
    if len(lines) > MAX_DIFF_LINES:
        result.notes.append(f"{len(lines) - MAX_DIFF_LINES:,} more lines of diff not shown")
    return result


async def this_sessions_diff(agent: Agent, session: Session) -> SessionDiff:
    """The open session's changes (/diff in both front ends), read in a worker thread."""
    git = agent.checkpoints.git if agent.checkpoints is not None else None
    journal = session.directory / JOURNAL_NAME
    workspace = agent.context.workspace
    roots = agent.context.extra_roots  # files written in added directories
    return await asyncio.to_thread(
        session_diff, journal, workspace, session.checkpoints, git, roots
    )
