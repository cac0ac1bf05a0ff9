"""One pleat per session: an advisory lock the kernel releases when its process dies."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "lock"


class SessionBusy(Exception):
    """Another live pleat holds the session."""


class SessionLock:
    """flock() on <session>/lock. A lock left by a killed process is no lock at all (the
    kernel dropped it with the process), so stale locks are taken over without guessing."""

    def __init__(self, directory: Path, session_id: str) -> None:
        self.path = directory / LOCK_NAME
        self.session_id = session_id
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise SessionBusy(
                f"session {self.session_id} is open in another pleat (pid {holder}); "
                "close that one, or start a new session"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
