"""A command's output written to the session as it arrives: `outputs/running-*.log`.

run_command streams its output here (aiofiles: many small appends on the event loop) while it
holds only a capped copy in memory. When the result is too big for the context, the whole
output is read back from here and kept for paging (sessions.outputs.KeptOutputs.keep, which
redacts it and writes it atomically); either way the spool file is removed. Meanwhile a user
can follow a long command with `tail -f`.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiofiles
import aiofiles.os
from aiofiles.threadpool.binary import AsyncFileIO

from sessions.atomic import atomic_write

# The most bytes of one command's output spooled: a log this size is still read back and paged
# in a second or two; beyond it (a runaway `yes`), the rest is counted and said, not stored.
SPOOL_MAX_BYTES = 64 * 1024 * 1024
SPOOL_NAME = "running-{}.log"
# Private: command output can hold whatever the workspace holds.
FILE_MODE = 0o600
DIR_MODE = 0o700


def _private_opener(path: str, flags: int) -> int:
    return os.open(path, flags, FILE_MODE)


@dataclass(frozen=True)
class SpooledOutput:
    """A finished spool: where the whole output is, and the bytes past the spool's cap."""

    path: Path
    dropped: int = 0
    after: str = ""  # what the tool's result adds after the output (run_command's status)


class OutputSpool:
    """One command's output on disk, appended as it arrives (up to SPOOL_MAX_BYTES)."""

    def __init__(self, path: Path, file: AsyncFileIO) -> None:
        self.path = path
        self._file = file
        self.written = 0
        self.dropped = 0  # bytes past SPOOL_MAX_BYTES, counted only
        # What keeps the session's known secrets out of a spool that stays on disk (a
        # background command's: sessions.redact.KnownSecrets.text); None: nothing to redact.
        self.redact: Callable[[str], str] | None = None

    def redact_in_place(self) -> None:
        """Rewrite the closed file with the known secrets redacted (a background command's
        output stays for /shells and command_output; found by review). Raises OSError."""
        if self.redact is None:
            return
        text = self.path.read_bytes().decode("utf-8", errors="surrogateescape")
        redacted = self.redact(text)
        if redacted != text:
            atomic_write(self.path, redacted.encode("utf-8", errors="surrogateescape"))

    @classmethod
    async def open(cls, directory: Path) -> OutputSpool:
        """A new spool file in `directory` (made private if missing). Raises OSError."""
        await aiofiles.os.makedirs(directory, mode=DIR_MODE, exist_ok=True)
        path = directory / SPOOL_NAME.format(uuid.uuid4().hex[:12])
        # Unbuffered: each chunk (up to a pipe read) reaches the file as it arrives.
        file = await aiofiles.open(path, "xb", buffering=0, opener=_private_opener)
        return cls(path, file)

    async def write(self, chunk: bytes) -> None:
        room = SPOOL_MAX_BYTES - self.written
        if room < len(chunk):
            self.dropped += len(chunk) - max(room, 0)
            chunk = chunk[: max(room, 0)]
        if chunk:
            await self._file.write(chunk)
            self.written += len(chunk)

    async def close(self) -> SpooledOutput:
        await self._file.close()
        return SpooledOutput(self.path, self.dropped)

    async def abandon(self) -> None:
        """Close and remove it (the command was cancelled or failed): nothing to keep."""
        try:
            await self._file.close()
        finally:
            self.path.unlink(missing_ok=True)  # one quick call, safe even while cancelling


def read_spooled(spooled: SpooledOutput) -> str:
    """The whole result as text: the output (invalid UTF-8 replaced, as in the in-memory copy;
    a line saying how much was not stored when it outgrew the spool), then what the tool adds
    after it. Raises OSError."""
    text = spooled.path.read_bytes().decode("utf-8", errors="replace").rstrip("\n")
    if spooled.dropped:
        text += f"\n[... {spooled.dropped:,} more bytes of output were not kept (too much) ...]"
    return text + spooled.after


def discard(path: Path) -> None:
    """Remove a spool file (its output fitted the context, or was kept as an output)."""
    path.unlink(missing_ok=True)
