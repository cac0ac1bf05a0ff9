"""Which pleat sessions work in a worktree now: each holds a shared lock on the worktree's file
in the data directory while it runs, so the last one to leave is the one that may remove it
(the kernel drops a killed session's hold)."""

from __future__ import annotations

import fcntl
import hashlib
import os
from pathlib import Path

from sessions.paths import data_home, private_dir

# Characters of the worktree path's SHA-256 naming its lock file: no two paths meet.
NAME_CHARS = 16


class WorktreeUse:
    """This session's hold on a worktree: taken when it enters, given up when it leaves."""

    def __init__(self, path: Path) -> None:
        digest = hashlib.sha256(os.fsencode(path.resolve())).hexdigest()[:NAME_CHARS]
        lock = private_dir(data_home() / "worktrees") / f"{digest}.lock"
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        self._fd: int | None = os.open(lock, flags, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_SH)

    def others(self) -> bool:
        """Whether another session still works there (this one's hold becomes the only one
        when not)."""
        assert self._fd is not None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the hold goes with the descriptor
            self._fd = None
