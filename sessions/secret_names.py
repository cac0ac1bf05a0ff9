"""Which environment variables hold secrets, and how long a value must be to count as one."""

from __future__ import annotations

import re

# Environment variables a command does not inherit: provider keys and other credentials
# (OPENAI_API_KEY, GITHUB_TOKEN, DB_PASSWORD ...). A model must not be able to read the user's
# keys with `env`, nor paste them into a file; the same policy as Codex's default.
SECRET_ENV_NAME = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
# Known secrets shorter than this are not replaced: a short string (a 4-digit PIN, "test")
# occurs by chance in ordinary text, and replacing it everywhere would garble the text.
MIN_KNOWN_SECRET_CHARS = 8


def holds_secret(name: str, value: str, names: re.Pattern[str] = SECRET_ENV_NAME) -> bool:
    """Whether an environment variable holds a secret: named like one (by `names`), long
    enough, and not a file path (`SSH_KEY_PATH=/home/me/.ssh/id`, `LESSKEY=~/.less` name
    files, not keys)."""
    return (
        names.search(name) is not None
        and len(value) >= MIN_KNOWN_SECRET_CHARS
        and not value.startswith(("/", "~", "./", "../"))
    )
