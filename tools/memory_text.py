"""What the memory keeps of a text: secrets redacted more strictly than in a transcript (notes are
short prose, a secret in one rides in every future system prompt), control characters dropped."""

# The whole memory is cleaned after every change, not only the model's new text: a key built in
# two steps (an `add` of its first half, a `replace` that appends the rest) is one only once
# joined. Beside sessions/redact.py's patterns (known formats, `password = "..."`), two that
# would be too eager for a command's output but fit notes: an env-file line whose name ends like
# a secret's (`STRIPE_KEY=...`, `DB_PASS=...`) whatever its value, and a long opaque run of
# letters and digits mixing upper case, lower case and digits (base64 of a key, a key of an
# unknown format); paths, identifiers, git hashes and UUIDs (one case) are kept.

from __future__ import annotations

import re
from collections.abc import Callable

from sessions.redact import REDACTED, redact

# Characters of a value after an env-file name that make it a secret: shorter ones are
# placeholders (`API_KEY=xxx`, `TOKEN=none`).
MIN_ENV_SECRET_CHARS = 8
# Characters of an opaque run that make it a secret: keys and their base64 are 20 to 100; words
# and identifiers this long that mix both cases and digits are rare in notes.
MIN_OPAQUE_CHARS = 24

# NAME=value or NAME: value, the name upper case and ending as a secret's does.
_ENV_SECRET = re.compile(
    r"(?<![A-Za-z0-9_])(?P<lead>[A-Z][A-Z0-9_]*"
    r"(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?)[ \t]*[=:][ \t]*)"
    rf"(?P<value>[^\s\"']{{{MIN_ENV_SECRET_CHARS},}}|\"[^\"\n]{{{MIN_ENV_SECRET_CHARS},}}\""
    rf"|'[^'\n]{{{MIN_ENV_SECRET_CHARS},}}')"
)
_OPAQUE = re.compile(rf"(?<![A-Za-z0-9+_-])[A-Za-z0-9+_-]{{{MIN_OPAQUE_CHARS},}}={{0,2}}")
# C0 and C1 controls but tab and newline, DEL, bidirectional marks and overrides, surrogates:
# nothing a note needs, and what could act on a terminal that shows the file (`cat`).
_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _opaque(match: re.Match[str]) -> str:
    run = match.group()
    mixed = (
        any(c.isupper() for c in run)
        and any(c.islower() for c in run)
        and any(c.isdigit() for c in run)
    )
    return REDACTED if mixed else run


def kept_text(text: str, known: Callable[[str], str] | None = None) -> str:
    """`text` as the memory may keep it: control characters dropped, secret-looking values and
    the session's `known` secrets (its redacting function) replaced with [REDACTED]."""
    text = _CONTROLS.sub("", text)
    text = redact(text)
    if known is not None:
        text = known(text)
    text = _ENV_SECRET.sub(lambda match: match.group("lead") + REDACTED, text)
    return _OPAQUE.sub(_opaque, text)
