"""Values quoted back in error messages, cut to a readable length."""

from __future__ import annotations

# Characters of a value quoted in an error: a long path or setting is still recognisable, and a
# hostile 10 MB one is not echoed whole into the terminal or the model's context.
MAX_QUOTED_CHARS = 200


def quoted(value: object, limit: int = MAX_QUOTED_CHARS) -> str:
    """`repr(value)`, cut after `limit` characters with a count of the rest."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"
