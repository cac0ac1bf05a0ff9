"""The sessions of one workspace, read without trusting their files: headers and messages."""

# read_archive's project scope reads other sessions' journals. Every one of them is treated as
# hostile: a journal may be a symlink, a pipe or a device, hold a line of gigabytes, or lie in
# its header. A session belongs to a workspace by the rule `pleat sessions` uses (the workspace
# its header recorded, resolved when it was made, equals this one, compared as text: a path
# that is now a symlink does not bring another workspace's sessions in).

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sessions.journal import JOURNAL_NAME, checked_message
from sessions.messages import TYPED_KEY, Message
from sessions.paths import data_home, is_session_id

# Bytes of a journal's first line read for its header: a header names the session, its
# workspace, model and parent, well under a kilobyte; a longer first line is not a header.
MAX_HEADER_BYTES = 64 * 1024
# Bytes of one journal line parsed as a message. A message's tool output is bounded by the
# window's tool budget (at most 25,000 tokens, about 100 KB) and a written file's arguments
# rarely reach a megabyte; a longer line is skipped unread, so no line can fill the memory.
MAX_LINE_BYTES = 8 * 1024 * 1024
# How a journal line holding a message starts (sessions/journal.py writes "type" first,
# without spaces): other records (compactions, usage, checkpoints) are skipped unparsed.
MESSAGE_LINE = b'{"type":"message"'
# Lines read from a journal's start looking for its first request, for the session list: the
# system prompt and the first prompt come first, a few hook or plan notes at most before them.
FIRST_REQUEST_LINES = 50
# Characters of a first request in a session list: a line, not the whole prompt.
FIRST_REQUEST_CHARS = 80
# Opening a journal: never through a symlink, never blocking on a pipe, never a terminal.
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY | os.O_NOFOLLOW


class Unreadable(ValueError):
    """A journal that is not read: a symlink, not a regular file, or not a session's."""


@dataclass(frozen=True)
class SessionRef:
    """One session of the workspace, as its header and its journal's last write say."""

    id: str
    directory: Path
    started: str  # the header's time, e.g. 2026-11-21T20:15:00+0100
    last_active: float  # the journal's modification time
    subagent: bool = False

    @property
    def date(self) -> str:
        """The day it started (the id's own date when the header has no usable time)."""
        return self.started[:10] if self.started[:4].isdigit() else "date unknown"


class ByteBudget:
    """Journal bytes one search may still read: past them it stops and says how far it got."""

    def __init__(self, total: int) -> None:
        self.left = total

    def take(self, count: int) -> bool:
        """Spend `count` bytes; False once the budget is spent."""
        self.left -= count
        return self.left >= 0


def same_workspace(recorded: object, workspace: Path) -> bool:
    """Whether a session whose header recorded `recorded` belongs to `workspace` (resolved):
    the same text, never resolved again (see the module)."""
    return isinstance(recorded, str) and recorded == str(workspace)


def open_journal(directory: Path) -> IO[bytes]:
    """A session's journal opened for reading. Raises OSError, or Unreadable when it is not a
    regular file of its own (a symlink, a pipe, a device)."""
    fd = os.open(directory / JOURNAL_NAME, OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable("its journal is not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _line(journal: IO[bytes]) -> tuple[bytes | None, int]:
    """(the next line, bytes read), the line None when it is longer than MAX_LINE_BYTES (the
    rest of it read and dropped) and b"" at the end."""
    line = journal.readline(MAX_LINE_BYTES + 1)
    read = len(line)
    if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
        return line, read
    while (rest := journal.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
        read += len(rest)
    return None, read + len(rest)


def _header(journal: IO[bytes]) -> dict[str, Any] | None:
    """The journal's header record, or None when its first line is not one."""
    first = journal.readline(MAX_HEADER_BYTES)
    try:
        header = json.loads(first.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(header, dict) or header.get("type") != "session":
        return None
    return header


def _ref(directory: Path, workspace: Path) -> SessionRef | None:
    """The session in `directory` when it is one of `workspace`'s, else None."""
    try:
        with open_journal(directory) as journal:
            header = _header(journal)
            last_active = os.fstat(journal.fileno()).st_mtime
    except (OSError, Unreadable):
        return None
    if header is None or not same_workspace(header.get("workspace"), workspace):
        return None
    started = header.get("time")
    return SessionRef(
        directory.name,
        directory,
        started if isinstance(started, str) else "",
        last_active,
        subagent=header.get("kind") == "subagent",
    )


def recorded_workspace(directory: Path) -> Path | None:
    """The workspace a session's header recorded (None when it cannot be read): what the
    chunk browser searches beside it."""
    try:
        with open_journal(directory) as journal:
            header = _header(journal)
    except (OSError, Unreadable):
        return None
    recorded = header.get("workspace") if header is not None else None
    return Path(recorded) if isinstance(recorded, str) and recorded else None


def workspace_sessions(workspace: Path) -> list[SessionRef]:
    """The sessions of `workspace` (resolved), newest first by last activity. Session folders
    that are symlinks, and sessions whose journal is damaged or unreadable, are left out."""
    root = data_home() / "sessions"
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    found = []
    for entry in entries:
        if not is_session_id(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        ref = _ref(Path(entry.path), workspace)
        if ref is not None:
            found.append(ref)
    return sorted(found, key=lambda ref: (ref.last_active, ref.id), reverse=True)


def _message(line: bytes) -> Message | None:
    """The message a journal line holds, or None (another record, or damaged)."""
    if not line.startswith(MESSAGE_LINE):
        return None
    try:
        record = json.loads(line.decode("utf-8", errors="replace"))
        return checked_message(record["message"])
    except (ValueError, KeyError, TypeError, RecursionError):
        return None


def journal_messages(
    ref: SessionRef,
    budget: ByteBudget | None = None,
    stopped: Callable[[], bool] = lambda: False,
) -> Iterator[Message]:
    """Every message the session's journal recorded, in order, once each (by id), folded and
    rewound ones too; damaged or oversized lines are skipped. Stops early when the budget is
    spent or `stopped()`. Raises OSError or Unreadable when the journal cannot be opened."""
    seen: set[str] = set()
    with open_journal(ref.directory) as journal:
        while not stopped():
            line, read = _line(journal)
            if not read or (budget is not None and not budget.take(read)):
                return
            message = _message(line) if line else None
            if message is None or message.id in seen:
                continue
            seen.add(message.id)
            yield message


def searched(message: Message) -> bool:
    """Whether a journaled message is searched: not the system prompt, not pleat's own
    injected text (summaries, hook output, instruction files), only what was said and done."""
    return message.role != "system" and not message.meta.get("injected")


def first_request(ref: SessionRef) -> str:
    """The session's first typed request on one line ("" when none is found early)."""
    try:
        with open_journal(ref.directory) as journal:
            for _ in range(FIRST_REQUEST_LINES):
                line, read = _line(journal)
                if not read:
                    break
                message = _message(line) if line else None
                if message is None or message.role != "user" or not searched(message):
                    continue
                typed = message.meta.get(TYPED_KEY)
                text = typed if isinstance(typed, str) and typed else message.content or ""
                return " ".join(text.split())[:FIRST_REQUEST_CHARS]
    except (OSError, Unreadable):
        pass
    return ""
