"""The status line setting: config.toml's `[status_line]` and Claude Code's `statusLine`, one shape.

```toml
[status_line]
type = "command"                    # the only kind there is (as in Claude Code)
command = "~/.claude/statusline.sh" # run by /bin/sh, the session's JSON on its stdin
padding = 0                         # cells of indentation before the line (optional)
refreshInterval = 10                # also re-run every N seconds (optional)
```

parse_status_line reads either source leniently (what it cannot use is a line in `problems`);
config.toml turns the first problem into an error (agent/config.py), a Claude Code settings file
names it and goes on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sessions.short_text import quoted

# The one kind of status line Claude Code has: a command whose first line of output is shown.
COMMAND_TYPE = "command"
# Cells of `padding` at most: it indents the line (Claude Code's meaning); past a quarter of a
# usual 80-column terminal it would only push the line off the screen.
MAX_PADDING = 20
# Seconds between timed refreshes, at least: Claude Code's own floor for `refreshInterval`
# (a command started more often than once a second would mostly run for itself) ...
MIN_REFRESH_SECONDS = 1.0
# ... and at most a day: longer than that is no timer at all (leave the key out).
MAX_REFRESH_SECONDS = 86_400.0
# The keys of the setting; `refresh_interval` is pleat's spelling of Claude Code's key.
KEYS = ("type", "command", "padding", "refreshInterval", "refresh_interval")


@dataclass(frozen=True)
class StatusLineSpec:
    """A status line command, as the user wrote it, and where it was written."""

    command: str
    padding: int = 0
    refresh_seconds: float | None = None  # also re-run every so many seconds (None: never)
    source: str = ""  # the file it came from, for the lines that name it


def parse_status_line(
    value: Any, source: str, *, label: str = "statusLine"
) -> tuple[StatusLineSpec | None, tuple[str, ...]]:
    """The spec `value` describes (None when it has no command to run) and a line per problem,
    each naming `source` and the key (`label`: how the file spells it)."""
    problems: list[str] = []
    where = f"{source}: {label}"
    if not isinstance(value, dict):
        return None, (f"{where} must be a table with type and command, got {quoted(value)}",)
    kind = value.get("type", COMMAND_TYPE)
    if kind != COMMAND_TYPE:
        return None, (f'{where}.type must be "{COMMAND_TYPE}", got {quoted(kind)}; not used',)
    command = value.get("command")
    if not isinstance(command, str) or not command.strip():
        return None, (f"{where}.command must be a command to run, got {quoted(command)}",)
    for key in value:
        if key not in KEYS:
            problems.append(
                f"{where}.{key} is not a key pleat knows (known: type, command, "
                "padding, refreshInterval); ignored"
            )
    padding = value.get("padding", 0)
    if isinstance(padding, bool) or not isinstance(padding, int) or not 0 <= padding <= MAX_PADDING:
        problems.append(
            f"{where}.padding must be an integer from 0 to {MAX_PADDING}, got "
            f"{quoted(padding)}; 0 is used"
        )
        padding = 0
    refresh = _refresh(value, where, problems)
    return StatusLineSpec(command, padding, refresh, source), tuple(problems)


def _refresh(value: dict[str, Any], where: str, problems: list[str]) -> float | None:
    """`refreshInterval` (or `refresh_interval`) in seconds, None when absent or bad."""
    key = "refreshInterval" if "refreshInterval" in value else "refresh_interval"
    seconds = value.get(key)
    if seconds is None:
        return None
    number = isinstance(seconds, int | float) and not isinstance(seconds, bool)
    if number and math.isfinite(seconds) and MIN_REFRESH_SECONDS <= seconds <= MAX_REFRESH_SECONDS:
        return float(seconds)
    problems.append(
        f"{where}.{key} must be seconds from {MIN_REFRESH_SECONDS:g} to "
        f"{MAX_REFRESH_SECONDS:g}, got {quoted(seconds)}; no timed refresh"
    )
    return None
