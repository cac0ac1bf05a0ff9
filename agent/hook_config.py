"""The `[hooks]` tables of config.toml: events, matchers, commands and time limits, validated.

```toml
[[hooks.PreToolUse]]
matcher = "run_command"          # a tool name, "A|B", "*" or "" for all, or a regex
command = "python3 ~/.config/pleat/no_rm.py"
timeout = 10                     # seconds (default 60)
```

Claude Code's shape is read too, so a `settings.json` hook carries over as it is written there:
a table with `matcher` and `hooks = [{ type = "command", command = "...", timeout = 10 }]`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sessions.short_text import quoted

# The events, named and ordered as Claude Code names them (its other events have no pleat
# counterpart; PostCompact is pleat's: after a fold, with the chunk it wrote).
HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "Stop",
    "SubagentStop",
)
# Seconds a hook may run when its table does not say: Claude Code's original default. A hook
# holds up what it guards (a tool call, a prompt) while it runs; a linter or a check takes
# seconds, so a minute is generous, and a hung hook is noticed within one.
DEFAULT_HOOK_TIMEOUT_SECONDS = 60.0
# The longest `timeout` accepted: the same ceiling as a shell command's (tools/shell.py).
MAX_HOOK_TIMEOUT_SECONDS = 600.0
# The keys of a hook table, and of an entry of Claude Code's `hooks` list.
TABLE_KEYS = ("matcher", "command", "timeout", "hooks")
ENTRY_KEYS = ("type", "command", "timeout")
# A matcher made only of these characters is a list of exact names (`Edit|Write`), as Claude
# Code reads it; anything else is a regular expression searched for in the name.
EXACT_NAMES = re.compile(r"[A-Za-z0-9_|]+")
# Matchers that match everything.
MATCH_ALL = ("", "*")
# Characters of a hook's command in the lines that name it: enough to tell two hooks apart.
NAME_CHARS = 40


class HookConfigError(Exception):
    """A bad hook table: one line naming the table and what is wrong (agent.config adds where)."""


@dataclass(frozen=True)
class Matcher:
    """What a hook's `matcher` selects: every subject, exact names, or a regex search."""

    pattern: str = ""

    def __post_init__(self) -> None:
        if self.pattern not in MATCH_ALL and not EXACT_NAMES.fullmatch(self.pattern):
            re.compile(self.pattern)  # raises re.error for a bad pattern

    def matches(self, subjects: Sequence[str]) -> bool:
        """Whether any of `subjects` (a tool's names, a fold's trigger and reason, a session
        start's source) is selected. An event with no subject runs every hook."""
        if self.pattern in MATCH_ALL or not subjects:
            return True
        if EXACT_NAMES.fullmatch(self.pattern):
            names = set(self.pattern.split("|"))
            return any(subject in names for subject in subjects)
        regex = re.compile(self.pattern)  # compiled once: re caches it
        return any(regex.search(subject) for subject in subjects)


@dataclass(frozen=True)
class HookSpec:
    """One command to run at one event."""

    event: str
    command: str
    matcher: Matcher = Matcher()
    timeout: float = DEFAULT_HOOK_TIMEOUT_SECONDS

    @property
    def name(self) -> str:
        """How messages name it: its event and its command, on one line, cut to NAME_CHARS."""
        command = " ".join(self.command.split())
        if len(command) > NAME_CHARS:
            command = command[: NAME_CHARS - 1] + "…"
        return f'{self.event} hook "{command}"'


def parse_hooks(value: Any) -> tuple[HookSpec, ...]:
    """Every hook of a `hooks` table, in the file's order per event. Raises HookConfigError."""
    if not isinstance(value, dict):
        raise HookConfigError(
            f"hooks must be a table of events, e.g. [[hooks.PreToolUse]], got {quoted(value)}"
        )
    specs: list[HookSpec] = []
    for event, tables in value.items():
        if event not in HOOK_EVENTS:
            raise HookConfigError(
                f"hooks.{event} is not a hook event (known: {', '.join(HOOK_EVENTS)})"
            )
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise HookConfigError(
                f"hooks.{event} must be an array of tables ([[hooks.{event}]]), "
                f"got {quoted(tables)}"
            )
        for index, table in enumerate(tables):
            specs.extend(_table(event, f"hooks.{event}[{index}]", table))
    return tuple(specs)


def _table(event: str, label: str, table: dict[str, Any]) -> list[HookSpec]:
    """The hooks of one table: its own command, or each entry of Claude Code's `hooks` list."""
    _known_keys(label, table, TABLE_KEYS)
    matcher = _matcher(label, table.get("matcher", ""))
    if "hooks" in table:
        if "command" in table:
            raise HookConfigError(f"{label} has both command and hooks: give one")
        entries = table["hooks"]
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise HookConfigError(
                f'{label}.hooks must be a list of tables like {{ type = "command", '
                f'command = "..." }}, got {quoted(entries)}'
            )
        if "timeout" in table:
            raise HookConfigError(f"{label}: put timeout in each entry of its hooks list")
        specs = []
        for index, entry in enumerate(entries):
            where = f"{label}.hooks[{index}]"
            _known_keys(where, entry, ENTRY_KEYS)
            kind = entry.get("type", "command")
            if kind != "command":
                raise HookConfigError(
                    f"{where}: type {quoted(kind)} is not supported (only command hooks)"
                )
            specs.append(_spec(event, where, entry, matcher))
        return specs
    return [_spec(event, label, table, matcher)]


def _spec(event: str, label: str, table: dict[str, Any], matcher: Matcher) -> HookSpec:
    command = table.get("command")
    if command is None:
        raise HookConfigError(f"{label} has no command")
    if not isinstance(command, str) or not command.strip():
        raise HookConfigError(f"{label}.command must be a non-empty string, got {quoted(command)}")
    timeout = table.get("timeout", DEFAULT_HOOK_TIMEOUT_SECONDS)
    good = (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and math.isfinite(timeout)
        and 0 < timeout <= MAX_HOOK_TIMEOUT_SECONDS
    )
    if not good:
        raise HookConfigError(
            f"{label}.timeout must be seconds in (0, {MAX_HOOK_TIMEOUT_SECONDS:g}], "
            f"got {quoted(timeout)}"
        )
    return HookSpec(event, command, matcher, float(timeout))


def _matcher(label: str, pattern: Any) -> Matcher:
    if not isinstance(pattern, str):
        raise HookConfigError(f"{label}.matcher must be a string, got {quoted(pattern)}")
    try:
        return Matcher(pattern)
    except re.error as error:
        raise HookConfigError(
            f"{label}.matcher {quoted(pattern)} is not a valid pattern: {error}"
        ) from None


def _known_keys(label: str, table: dict[str, Any], known: Sequence[str]) -> None:
    for key in table:
        if key not in known:
            raise HookConfigError(f"{label}: unknown key {key!r} (known: {', '.join(known)})")
