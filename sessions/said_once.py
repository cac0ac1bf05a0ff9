"""Notes worth saying once, not at every start: remembered in $PLEAT_HOME by their digest.

A note is known by the SHA-256 of what it says and of what it is about (a file's content), so
the same note about a changed file is new again. The digests are kept in one small file,
written atomically; a file that cannot be read starts the memory over, one that cannot be
written leaves every note new: a note is said again rather than never.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sessions.atomic import atomic_write
from sessions.model_json import ModelJsonError, loads
from sessions.paths import data_home, private_dir

SAID_FILE = "notes-said.json"
# Digests kept, the oldest forgotten first (its note is said once more): one per note ever said
# (a few per agent definition a user has), so a thousand is years of them.
MAX_REMEMBERED = 1_000
# Bytes of the file read at most: MAX_REMEMBERED digests take about 70 KB; a larger file is
# not pleat's, and the memory starts over.
MAX_SAID_BYTES = 256 * 1024


def _path() -> Path:
    return data_home() / SAID_FILE


def _remembered() -> list[str]:
    """The digests of the notes said, oldest first; empty when unreadable or damaged."""
    try:
        with _path().open("rb") as file:
            raw = file.read(MAX_SAID_BYTES + 1)
        data = loads(raw.decode("utf-8")) if len(raw) <= MAX_SAID_BYTES else []
    except (OSError, UnicodeDecodeError, ModelJsonError):
        return []
    return [item for item in data if isinstance(item, str)] if isinstance(data, list) else []


def first_time(note: str, about: str = "") -> bool:
    """Whether `note` (about `about`: a file's content) was never said before; it is
    remembered as said now. Blocking (reads and writes a file): call it at start-up."""
    text = f"{note}\n{about}".encode("utf-8", errors="replace")
    digest = hashlib.sha256(text).hexdigest()
    said = _remembered()
    if digest in said:
        return False
    said = [*said, digest][-MAX_REMEMBERED:]
    try:
        private_dir(data_home())
        atomic_write(_path(), (json.dumps(said, indent=0) + "\n").encode("utf-8"))
    except OSError:
        pass  # not remembered: said again next time
    return True
