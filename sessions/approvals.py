"""What the user approved of a project's files (its .mcp.json servers, its Claude Code hooks), kept
under $PLEAT_HOME by key (a workspace, a file) with the SHA-256 of what was approved, so a
changed file is asked about again.

The store is one JSON object per kind (`mcp-approvals.json`, `hook-approvals.json`), private to
the user and written atomically; a damaged or oversized one reads as empty (everything is asked
again), never as an error.
"""

from __future__ import annotations

import json
from pathlib import Path

from sessions.atomic import atomic_write
from sessions.model_json import ModelJsonError, loads
from sessions.paths import data_home, private_dir

# Bytes of an approvals file read at most: one line per workspace ever approved; 4 MiB holds
# tens of thousands (a larger one is damaged, and approvals start over).
MAX_APPROVALS_BYTES = 4 * 1024 * 1024


def digest(text: str) -> str:
    """The SHA-256 an approval is kept with: of exactly the text the user was shown (hashlib,
    which loads OpenSSL, imported here: a start with nothing to approve does not wait for it)."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()


class Approvals:
    """One kind of approval: key -> the digest of what was approved."""

    def __init__(self, file_name: str) -> None:
        self.file_name = file_name

    @property
    def path(self) -> Path:
        return data_home() / self.file_name

    def read(self) -> dict[str, str]:
        """Every approval; empty when the file is missing, unreadable or damaged."""
        try:
            with self.path.open("rb") as file:
                raw = file.read(MAX_APPROVALS_BYTES + 1)
            data = loads(raw.decode("utf-8")) if len(raw) <= MAX_APPROVALS_BYTES else {}
        except (OSError, UnicodeDecodeError, ModelJsonError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}

    def approved(self, key: str, sha: str) -> bool:
        """Whether the user approved exactly this (`sha`) under `key`."""
        return bool(sha) and self.read().get(key) == sha

    def approve(self, key: str, sha: str) -> None:
        """Remember the approval. Raises OSError when it cannot be written."""
        approvals = self.read()
        approvals[key] = sha
        private_dir(data_home())
        text = json.dumps(dict(sorted(approvals.items())), indent=1) + "\n"
        atomic_write(self.path, text.encode("utf-8"))
