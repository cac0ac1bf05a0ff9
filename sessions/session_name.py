"""A session's name, given with /rename: its bounds, checked, and its journal record."""

from __future__ import annotations

import json
from typing import Any

from sessions.lone_surrogates import has_lone_surrogate

# The journal record that names the session (or, with `name` null, takes the name back); the
# last one in the journal is the title the resume picker shows.
NAME_RECORD = "name"
# How a name record's line starts (the journal writes "type" first, without spaces): the
# session list looks for it without parsing every line.
NAME_LINE = '{"type":"name"'
# Characters of a name: a title on one line of the resume picker, like a branch name or a
# commit subject (Claude Code's and Codex's session titles are of this size).
MAX_NAME_CHARS = 80


class SessionNameError(ValueError):
    """A name pleat does not keep: one line saying why."""


def checked_name(text: str) -> str:
    """The name as typed, on one line without the blanks around it; raises SessionNameError when
    it is empty, too long or holds a character UTF-8 cannot write."""
    name = " ".join(text.split())
    if not name:
        raise SessionNameError("give the session a name: /rename NAME")
    if len(name) > MAX_NAME_CHARS:
        raise SessionNameError(f"the name is {len(name):,} characters; at most {MAX_NAME_CHARS}")
    if has_lone_surrogate(name) or not name.isprintable():
        raise SessionNameError("the name holds a character that is not printable")
    return name


def name_record(name: str | None, time: str) -> dict[str, Any]:
    """The journal record naming the session `name` (None: unnamed again) at `time`."""
    return {"type": NAME_RECORD, "time": time, "name": name}


def recorded_name(line: str) -> str | None:
    """The name a journal line records, or None (another record, a damaged one, or unnamed)."""
    try:
        record = json.loads(line)
        name = record.get("name") if isinstance(record, dict) else None
        return checked_name(name) if isinstance(name, str) else None
    except (ValueError, RecursionError):
        return None
