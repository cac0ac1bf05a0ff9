"""Durable file writes for session data: temp file, fsync, rename, fsync of the directory."""

from __future__ import annotations

import os
import threading
from pathlib import Path

# Only the session owner may read what pleat stores: it holds everything the user and tools said.
FILE_MODE = 0o600


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new entry in `directory` durable (best effort where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # platforms without directory handles (Windows): the rename is what we have
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Temp file beside the target (a dot name, which listings ignore), fsync, rename, fsync the
    directory: readers see the old file or the whole new one, never a torn one."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        try:
            os.fchmod(fd, FILE_MODE)  # in case the temp name existed with other permissions
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
