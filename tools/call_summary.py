"""A tool call's arguments on one short line: `path='a.py', max_count=3, regex=true`."""

from __future__ import annotations

import json
from typing import Any

# Characters of one argument's value (and of its name) shown: a path or a short command whole,
# the start of a file's content; the model gets the whole call, this line is for people.
SHOWN_VALUE_CHARS = 60
# Arguments shown: every tool of pleat's takes fewer; a call with more (crafted, or an MCP tool's
# long form) says how many it left out rather than filling the screen.
SHOWN_ARGUMENTS = 8


def shown_arguments(args: dict[str, Any]) -> str:
    """`name=value, ...`: strings quoted, numbers, booleans and null as JSON writes them, lists
    and objects as compact JSON; each cut to SHOWN_VALUE_CHARS, at most SHOWN_ARGUMENTS."""
    first = list(args.items())[:SHOWN_ARGUMENTS]
    shown = [f"{_cut(str(name))}={_value(value)}" for name, value in first]
    if len(args) > SHOWN_ARGUMENTS:
        shown.append(f"… {len(args) - SHOWN_ARGUMENTS} more")
    return ", ".join(shown)


def _value(value: Any) -> str:
    if isinstance(value, str):
        return repr(_cut(value))
    if value is None or isinstance(value, bool | int | float | list | dict):
        try:
            return _cut(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))
        except (ValueError, TypeError, RecursionError):  # not JSON after all: shown as text
            pass
    return repr(_cut(str(value)))


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 1] + "…"
