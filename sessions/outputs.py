"""Kept outputs: the full text of tool results too big for the context, stored for paging.

When a tool result is cut to fit the model's window (a command printing a megabyte, any tool's
oversized answer), its whole text is written here, so the model can page through it with
read_archive instead of running the command again. Files are `outputs/output-NNNN.txt` in the
session directory, private, written atomically, with known secrets redacted.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from sessions.atomic import atomic_write, fsync_dir
from sessions.redact import KnownSecrets

OUTPUTS_DIR = "outputs"
# `output-0001.txt`, ...: four digits keep a listing in order for any realistic session.
OUTPUT_NAME_FORMAT = "output-{:04d}.txt"
OUTPUT_NAME = re.compile(r"output-(\d+)\.txt\Z")
DIR_MODE = 0o700
# Text is stored as UTF-8; lone surrogates (possible in decoded tool output) survive too.
ENCODING = "utf-8"
ENCODING_ERRORS = "surrogatepass"


class KeptOutputs:
    """The kept outputs of one session, numbered from 1."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.Lock()
        # Values never written (the configured API key; agent.assemble sets them).
        self.secrets = KnownSecrets()

    def path(self, number: int) -> Path:
        return self.directory / OUTPUT_NAME_FORMAT.format(number)

    def numbers(self) -> list[int]:
        """The numbers of the kept outputs present, ascending."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        return sorted(int(m.group(1)) for n in names if (m := OUTPUT_NAME.match(n)))

    def keep(self, text: str) -> int:
        """Store a full output; returns its number. Raises OSError when it cannot be written."""
        data = self.secrets.text(text).encode(ENCODING, ENCODING_ERRORS)
        with self._lock:
            self._ensure_directory()
            numbers = self.numbers()
            number = numbers[-1] + 1 if numbers else 1
            atomic_write(self.path(number), data)
        return number

    def redacted(self, text: str) -> str:
        """The text with the known secrets redacted (a background command's spool)."""
        return self.secrets.text(text)

    def copy_from(self, other: KeptOutputs) -> int:
        """Copy every kept output of another session here, numbers kept (a fork's inheritance:
        its history cites them by number). Returns how many were copied."""
        numbers = other.numbers()
        with self._lock:
            for number in numbers:
                self._ensure_directory()
                atomic_write(self.path(number), other.path(number).read_bytes())
        return len(numbers)

    def _ensure_directory(self) -> None:
        if not self.directory.is_dir():
            self.directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            os.chmod(self.directory, DIR_MODE)  # mkdir's mode is filtered by the umask
            fsync_dir(self.directory.parent)

    def read(self, number: int) -> str:
        """The text of a kept output. Raises FileNotFoundError (or another OSError)."""
        return self.path(number).read_bytes().decode(ENCODING, ENCODING_ERRORS)
