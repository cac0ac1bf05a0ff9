"""Prompt completion: slash commands after a leading "/", workspace files after "@" (no UI here)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# Suggestions offered at once: the list shows about eight rows, and thirty leave room to scroll
# without building a long list on every keystroke in a large repository.
MAX_SUGGESTIONS = 30
# Seconds a listing of the workspace's files is reused: files appear while the agent works,
# but listing a big repository on every "@" keystroke would be wasteful.
FILES_TTL_SECONDS = 30.0


@dataclass(frozen=True)
class Suggestion:
    """One choice: the text that replaces the word being completed, and how it is shown."""

    value: str
    label: str


# What is being completed: a slash command after a leading "/", or a workspace file after "@".
CompletionKind = Literal["command", "file"]


@dataclass(frozen=True)
class Completion:
    """Suggestions for the word from `start` to `end` (columns of the cursor's line)."""

    start: int
    end: int
    suggestions: tuple[Suggestion, ...]
    kind: CompletionKind


def _word_before(line: str, column: int) -> tuple[int, str]:
    """The start column and text of the word that ends at the cursor."""
    start = column
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    return start, line[start:column]


def command_completion(
    line: str, column: int, row: int, commands: Sequence[tuple[str, str]]
) -> Completion | None:
    """`/co` at the start of the prompt: the commands whose name starts with it (then those
    containing it). `commands` are (name, label) pairs: names without the slash, labels as the
    list shows them."""
    if row != 0 or not line.startswith("/") or " " in line[:column]:
        return None
    typed = line[1:column].lower()
    first = [c for c in commands if c[0].lower().startswith(typed)]
    then = [c for c in commands if typed in c[0].lower() and c not in first]
    found = tuple(Suggestion(f"/{name}", label) for name, label in first + then)
    end = len(line) if " " not in line else line.index(" ")
    return Completion(0, end, found, "command") if found else None


def file_completion(line: str, column: int, files: Sequence[str]) -> Completion | None:
    """`@src/ma` anywhere: workspace files matching what follows the @ (basename prefix first,
    then path prefix, then anywhere in the path; case ignored)."""
    start, word = _word_before(line, column)
    if not word.startswith("@"):
        return None
    typed = word[1:].lower()
    ranked: list[tuple[int, str]] = []
    for path in files:
        lowered = path.lower()
        if lowered.rsplit("/", 1)[-1].startswith(typed):
            ranked.append((0, path))
        elif lowered.startswith(typed):
            ranked.append((1, path))
        elif typed in lowered:
            ranked.append((2, path))
    ranked.sort(key=lambda item: (item[0], len(item[1]), item[1]))
    found = tuple(Suggestion(f"@{p}", p) for _, p in ranked[:MAX_SUGGESTIONS])
    return Completion(start, column, found, "file") if found else None


class WorkspaceFiles:
    """The files a prompt may mention with @: what glob and grep may see (gitignored files,
    .git and links leading outside are left out), listed in a thread and reused a while."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.files: list[str] = []
        self._listed_at: float | None = None
        self._listing: asyncio.Task[None] | None = None

    @property
    def stale(self) -> bool:
        return self._listed_at is None or time.monotonic() - self._listed_at > FILES_TTL_SECONDS

    async def refresh(self) -> None:
        """List the files again (once at a time; callers share the running listing)."""
        if self._listing is None or self._listing.done():
            self._listing = asyncio.ensure_future(self._list())
        await asyncio.shield(self._listing)

    async def _list(self) -> None:
        from tools.visible_files import visible_files  # on the first @, not at startup

        self.files = await asyncio.to_thread(visible_files, self.root, self.root)
        self._listed_at = time.monotonic()
