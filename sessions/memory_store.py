"""The auto memory of one workspace: pleat's own notes file in the data directory, bounded,
read without trusting it, and changed atomically under a lock (tools/memory.py edits it, the
system prompt loads its first part: agent/turn/auto_memory.py)."""

# One Markdown file per workspace, $PLEAT_HOME/memory/<name>-<digest>/MEMORY.md (Claude Code's
# file name for its auto memory): a file the user can open, read and fix in an editor, which a
# directory of files (Anthropic's memory tool) would make harder to see at a glance. Beside it a
# lock file: two sessions of the same workspace change the memory one after the other, each
# reading what the other wrote (read, change and write happen under one flock), so neither
# loses the other's entry. Writes go through sessions/atomic.py: a reader (a starting session,
# /memory) sees the old file or the new one, never a torn one.

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sessions.atomic import atomic_write
from sessions.paths import data_home, private_dir

MEMORY_DIR = "memory"
MEMORY_FILE = "MEMORY.md"
LOCK_FILE = "lock"
# Bytes the model may grow the memory to: its whole text rides in every request of every new
# session (about 3,000 tokens at most, a tenth of what the instruction files may take), and a
# few hundred short preferences and facts fit. A write past it is refused (removing or
# condensing is always allowed), so everything the model keeps is also what is loaded.
MAX_MEMORY_BYTES = 12_000
# Lines of the memory loaded into a new session's system prompt (Claude Code loads the first
# 200 lines of its MEMORY.md): a file the user made longer in an editor is loaded up to here, and
# up to MAX_MEMORY_BYTES, the rest read with `memory view`.
LOADED_LINES = 200
# Bytes of the file read at most: a file the user grew far past MAX_MEMORY_BYTES (or one that
# is not pleat's) is read this far; the tool then refuses to change it until it is trimmed.
MAX_READ_BYTES = 256 * 1024
# Characters of the workspace's own name kept in its memory directory's name (to find it by
# eye); the digest of the whole path is what tells two workspaces of the same name apart.
NAME_CHARS = 40
# Hex digits of the path's SHA-256 in the directory's name: 64 bits, no collision among the
# workspaces one user ever has.
DIGEST_CHARS = 16
# Opening the memory: never through a symlink, never blocking on a pipe, never a terminal.
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY | os.O_NOFOLLOW
# Opening the lock file: never through a symlink (it would create a file elsewhere), never
# blocking on a pipe.
LOCK_FLAGS = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOCTTY | os.O_NOFOLLOW | os.O_NONBLOCK
# Seconds a change waits for another session's: a change holds the lock for milliseconds, so
# one held longer belongs to a session that is stopped (Ctrl+Z) or hung, and the model is told
# rather than its turn blocked for good.
LOCK_WAIT_SECONDS = 5.0
# Seconds between two tries of a lock held elsewhere.
LOCK_POLL_SECONDS = 0.05
# What may stay of a workspace's name in a directory name.
UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]")


class MemoryRefused(Exception):
    """The memory cannot be read or changed as asked; the message is one line."""


@dataclass(frozen=True)
class MemoryText:
    """The memory as read: its text ("" when there is none yet), and whether the file is
    longer than what was read (MAX_READ_BYTES)."""

    text: str
    cut: bool = False


def memory_directory(workspace: Path) -> Path:
    """Where `workspace`'s memory lives: keyed by its resolved path, as its sessions are."""
    resolved = str(workspace.resolve())
    name = UNSAFE_CHARS.sub("_", Path(resolved).name)[:NAME_CHARS].strip(".") or "root"
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()
    return data_home() / MEMORY_DIR / f"{name}-{digest[:DIGEST_CHARS]}"


def first_part(text: str) -> tuple[str, bool]:
    """What a new session loads of the memory: its first LOADED_LINES lines, at most
    MAX_MEMORY_BYTES (cut at a line's end); and whether anything was left out."""
    lines = text.splitlines()
    kept: list[str] = []
    size = 0
    for line in lines[:LOADED_LINES]:
        size += len(line.encode("utf-8", "replace")) + 1
        if size > MAX_MEMORY_BYTES:
            break
        kept.append(line)
    return "\n".join(kept), len(kept) < len(lines)


class WorkspaceMemory:
    """One workspace's memory file (see the module)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / MEMORY_FILE
        self.lock_wait = LOCK_WAIT_SECONDS  # how long a change waits for another session's

    @classmethod
    def of(cls, workspace: Path) -> WorkspaceMemory:
        """The memory of `workspace` in the data directory."""
        return cls(memory_directory(workspace))

    def read(self) -> MemoryText:
        """The memory's text (up to MAX_READ_BYTES); empty when there is none yet. Raises
        MemoryRefused when the file is a symlink, not a regular file, or unreadable."""
        try:
            fd = os.open(self.path, OPEN_FLAGS)
        except FileNotFoundError:
            return MemoryText("")
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise MemoryRefused(f"{self.path} is a symlink, not pleat's own file") from None
            raise MemoryRefused(f"{self.path} cannot be read: {_why(error)}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise MemoryRefused(f"{self.path} is not a regular file")
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=False) as file:
                raw = file.read(MAX_READ_BYTES + 1)
        except OSError as error:
            raise MemoryRefused(f"{self.path} cannot be read: {_why(error)}") from None
        finally:
            os.close(fd)
        cut = len(raw) > MAX_READ_BYTES
        return MemoryText(raw[:MAX_READ_BYTES].decode("utf-8", "replace"), cut)

    def change(self, edit: Callable[[str], str]) -> str:
        """Read, `edit` and write the memory under its lock; the new text. `edit` raises
        MemoryRefused to change nothing. Refused too: a file too long to read whole, and a
        change that grows the memory past MAX_MEMORY_BYTES. Raises MemoryRefused for an
        unwritable data directory."""
        try:
            with self._locked():
                found = self.read()
                if found.cut:
                    raise MemoryRefused(
                        f"{self.path} is over {MAX_READ_BYTES:,} bytes, too long to change "
                        "here: the user can trim it (/memory opens it)"
                    )
                text = edit(found.text)
                size, before = len(text.encode()), len(found.text.encode())
                if size > MAX_MEMORY_BYTES and size > before:
                    raise MemoryRefused(
                        f"the memory would take {size:,} bytes, past its {MAX_MEMORY_BYTES:,}: "
                        "remove or condense entries first"
                    )
                atomic_write(self.path, text.encode())
                return text
        except OSError as error:
            raise MemoryRefused(f"cannot write {self.path}: {_why(error)}") from None

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The memory's lock held (flock: released by the kernel if the process dies)."""
        private_dir(self.directory)
        fd = os.open(self.directory / LOCK_FILE, LOCK_FLAGS, 0o600)
        try:
            deadline = time.monotonic() + self.lock_wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise MemoryRefused(
                            "another session is changing the memory (or is stopped while it "
                            "does): try again later"
                        ) from None
                    time.sleep(LOCK_POLL_SECONDS)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock


def _why(error: OSError) -> str:
    """An OSError in a few words."""
    return error.strerror or type(error).__name__
