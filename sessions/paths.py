"""Where sessions live: $PLEAT_HOME/sessions/<id>/ (platformdirs' data dir without PLEAT_HOME)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

APP_NAME = "pleat"
# Directories holding transcripts and archives are private to the user: they contain code,
# command output and anything the user typed.
PRIVATE_DIR_MODE = 0o700
# What a session id may look like: the ids pleat makes (20261121-201500-a1b2c3) and any plain
# name, never a path (`../x`, `/etc`, a NUL); 128 characters is far past any id made here.
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def data_home() -> Path:
    value = os.environ.get("PLEAT_HOME")
    if value:
        return Path(value).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def new_session_id() -> str:
    """Sortable by start time, unique without coordination: 20261121-201500-a1b2c3. (secrets
    imported here: it loads OpenSSL, which the TUI's first frame does not wait for.)"""
    import secrets

    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) with mode 0700; tighten it if it already exists."""
    path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
    os.chmod(path, PRIVATE_DIR_MODE)
    return path


def is_session_id(text: str) -> bool:
    """Whether `text` can name a session (so it can be used as a directory name)."""
    return SESSION_ID.fullmatch(text) is not None and ".." not in text


def session_dir(session_id: str) -> Path:
    """The directory of a session; raises ValueError for a string that is not a session id."""
    if not is_session_id(session_id):
        raise ValueError(f"not a session id: {session_id[:60]!r}")
    return data_home() / "sessions" / session_id
