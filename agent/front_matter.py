"""Front matter of a markdown file: a `key: value` block between `---` lines, read without YAML.

Agent definitions (and files like them) open with a block such as

    ---
    name: reviewer
    description: Reviews a diff for bugs
    tools: read_file, grep
    ---

followed by the body. Only a plain subset of YAML is read: `key: value` lines, values optionally
in single or double quotes, `#` comment lines, and `- item` lines under a key with no value (a
list, joined with ", "). Anything else is an error of one line that names the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The line that opens and closes the block.
FENCE = "---"
# A key: a letter, then letters, digits, `_` or `-` (YAML allows more; no definition needs it).
KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
# Keys one block may hold: far more than any definition has (four), few enough that a file of
# nothing but keys is refused early.
MAX_KEYS = 64
# Characters of a bad line quoted in its error: enough to recognise it.
SHOWN_CHARS = 40


class FrontMatterError(ValueError):
    """A block that is not the subset read here: one line saying where and why."""


@dataclass(frozen=True)
class FrontMatter:
    """The block's values by key (lists joined with ", ") and the text after it."""

    fields: dict[str, str]
    body: str


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_front_matter(text: str) -> FrontMatter:
    """Split `text` into its front matter and body; a text that does not open with `---` has
    none (all of it is the body). Raises FrontMatterError."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != FENCE:
        return FrontMatter({}, text.removeprefix("\ufeff"))
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == FENCE)
    except StopIteration:
        raise FrontMatterError("the front matter is not closed (no second --- line)") from None
    fields: dict[str, str] = {}
    listing: str | None = None  # the key whose `- item` lines are being read
    for number, line in enumerate(lines[1:end], 2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and listing is not None:
            item = _unquoted(stripped[2:].strip())
            fields[listing] = f"{fields[listing]}, {item}" if fields[listing] else item
            continue
        key, colon, value = stripped.partition(":")
        key = key.strip()
        if not colon or not KEY.match(key):
            shown = stripped if len(stripped) <= SHOWN_CHARS else stripped[: SHOWN_CHARS - 1] + "…"
            raise FrontMatterError(f"line {number}: expected `key: value`, got {shown!r}")
        if key not in fields and len(fields) >= MAX_KEYS:
            raise FrontMatterError(f"line {number}: more than {MAX_KEYS} keys")
        fields[key] = _unquoted(value.strip())
        listing = key if not value.strip() else None
    return FrontMatter(fields, "\n".join(lines[end + 1 :]))
