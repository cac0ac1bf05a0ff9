"""The checkpoint store of one session: file contents kept by their SHA-256, for undo and rewind.

Before write_file or edit_file changes a file, its old bytes are kept here (once per content:
the same bytes are stored once however often they come back). Files are
`checkpoints/blobs/<2 hex>/<62 hex>`, written atomically, 0600 in 0700 directories; a blob whose
bytes no longer match its name is reported as damaged, never restored.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from sessions.atomic import atomic_write
from sessions.paths import private_dir

CHECKPOINTS_DIR = "checkpoints"
BLOBS_DIR = "blobs"
# How a stored content is named in journal records: "sha256:" and the digest in hex.
STORE_PREFIX = "sha256:"
STORE_REF = re.compile(r"sha256:[0-9a-f]{64}\Z")


class CheckpointMissing(Exception):
    """A kept content is gone or damaged: one line saying which."""


def content_ref(data: bytes) -> str:
    """The name the store gives `data` (also how a file's current bytes are compared with
    what pleat wrote)."""
    return STORE_PREFIX + hashlib.sha256(data).hexdigest()


class CheckpointStore:
    """Content-addressed blobs under a session's `checkpoints/` directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def _path(self, ref: str) -> Path:
        if not STORE_REF.match(ref):
            raise CheckpointMissing(f"{ref[:80]!r} is not a checkpoint name")
        digest = ref[len(STORE_PREFIX) :]
        return self.directory / BLOBS_DIR / digest[:2] / digest[2:]

    def put(self, data: bytes) -> str:
        """Keep `data`; returns its name. Raises OSError when it cannot be written."""
        ref = content_ref(data)
        path = self._path(ref)
        if path.is_file() and path.stat().st_size == len(data):
            return ref  # kept already (its bytes are checked when read)
        for directory in (self.directory, path.parent.parent, path.parent):
            private_dir(directory)  # each level 0700 (mkdir's parents get the umask's mode)
        atomic_write(path, data)
        return ref

    def get(self, ref: str) -> bytes:
        """The bytes kept under `ref`. Raises CheckpointMissing when they are gone or damaged."""
        path = self._path(ref)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CheckpointMissing(
                f"the kept content {ref[:19]}… cannot be read ({error.strerror or error})"
            ) from None
        if content_ref(data) != ref:
            raise CheckpointMissing(f"the kept content {ref[:19]}… is damaged")
        return data

    def has(self, ref: str) -> bool:
        """Whether `ref` is kept (present, of any size: get() checks the bytes)."""
        try:
            return self._path(ref).is_file()
        except CheckpointMissing:
            return False


def is_store_ref(ref: str) -> bool:
    return bool(STORE_REF.match(ref))
