"""The `[hooks]` tables of config.toml: events, matchers, commands and time limits, validated.

```toml
[[hooks.PreToolUse]]
matcher = "run_command"          # a tool name, "A|B", "*" or "" for all, or a regex
command = "python3 ~/.config/pleat/no_rm.py"
timeout = 10                     # seconds (default 60)
```

Claude Code's shape is read too, so a `settings.json` hook carries over as it is written there:
a table with `matcher` and `hooks = [{ type = "command", command = "...", timeout = 10 }]`.
Claude Code's settings files themselves (agent/hooks/claude_settings.py) are read leniently
(parse_claude_hooks): what pleat cannot run is left out with a line, never a failure to start.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sessions.short_text import quoted

# The events pleat runs, named and ordered as Claude Code names them (PostCompact is pleat's too:
# after a fold, with the chunk it wrote; SessionEnd runs when pleat quits or the session closes;
# Notification when the TUI calls the user back: agent/hooks/notification.py).
HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Notification",
    "PreCompact",
    "PostCompact",
    "Stop",
    "SubagentStop",
    "SessionEnd",
)
# Claude Code's other documented events: pleat does not run them yet. A hooks block copied from
# Claude Code that names one is read all the same (its hooks are kept and said to be idle, in
# one line: agent.hooks.runner.HookSet.notes), never a failure to start.
CLAUDE_ONLY_EVENTS = (
    "Setup",
    "InstructionsLoaded",
    "UserPromptExpansion",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUseFailure",
    "PostToolBatch",
    "SubagentStart",
    "TaskCreated",
    "TaskCompleted",
    "StopFailure",
    "TeammateIdle",
    "ConfigChange",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
    "PreModelSwitch",
    "PostModelSwitch",
    "MessageDisplay",
)
# Seconds a hook may run when its table does not say: Claude Code's original default. A hook
# holds up what it guards (a tool call, a prompt) while it runs; a linter or a check takes
# seconds, so a minute is generous, and a hung hook is noticed within one.
DEFAULT_HOOK_TIMEOUT_SECONDS = 60.0
# The longest `timeout` accepted: the same ceiling as a shell command's (tools/shell.py).
MAX_HOOK_TIMEOUT_SECONDS = 600.0
# The keys of a hook table, and of an entry of Claude Code's `hooks` list.
TABLE_KEYS = ("matcher", "command", "timeout", "hooks", "sandbox")
ENTRY_KEYS = ("type", "command", "timeout", "sandbox")
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
    # Claude Code's `if`: a permission rule in pleat's names (`run_command(npm test *)`) a tool
    # call must match for the hook to run ("": every call the matcher selects). Tool events
    # only, as in Claude Code (agent/hooks/tool_hooks.py reads it).
    condition: str = ""
    # Claude Code's `onFailure: "block"`: a PreToolUse guard that fails or times out blocks.
    block_on_failure: bool = False
    # Whether the file gave `timeout` (SessionEnd's short default applies otherwise).
    timeout_given: bool = field(default=False, compare=False)
    # Runs in the sandbox, as the model's commands do (tools/sandbox/): only when its table or
    # entry says `sandbox = true`. A hook is the user's (configured, or approved with every
    # command shown), so it runs as the user, as in Claude Code and Codex.
    sandboxed: bool = False
    # Variables set for this hook alone, over the run's environment (a plugin's hooks get
    # CLAUDE_PLUGIN_ROOT: agent/plugins/parts.py).
    env: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        """How messages name it: its event and its command, on one line, cut to NAME_CHARS."""
        command = " ".join(self.command.split())
        if len(command) > NAME_CHARS:
            command = command[: NAME_CHARS - 1] + "…"
        return f'{self.event} hook "{command}"'


def parse_hooks(value: Any) -> tuple[HookSpec, ...]:
    """Every hook of a `hooks` table (config.toml's), in the file's order per event. Raises
    HookConfigError: pleat's own file is checked strictly."""
    _events(value)
    specs: list[HookSpec] = []
    for event, tables in value.items():
        if event not in HOOK_EVENTS and event not in CLAUDE_ONLY_EVENTS:
            known = ", ".join(HOOK_EVENTS)
            raise HookConfigError(f"hooks.{event} is not a hook event (known: {known})")
        for index, table in enumerate(_tables(event, tables)):
            specs.extend(_table(event, f"hooks.{event}[{index}]", table))
    return tuple(specs)


def parse_claude_hooks(value: Any, source: str) -> tuple[tuple[HookSpec, ...], tuple[str, ...]]:
    """The hooks of a Claude Code settings file's `hooks` block, read leniently: a hook pleat
    cannot run as written (a prompt or HTTP hook, a bad matcher or condition, an event Claude
    Code may have added since) is left out with one line saying so, never run without its
    condition; keys pleat does not know are read past, a timeout out of range is brought into
    it. Returns (hooks, problems)."""
    try:
        _events(value)
    except HookConfigError as error:
        return (), (f"{source}: {error}; its hooks are not used",)
    specs: list[HookSpec] = []
    problems: list[str] = []
    for event, tables in value.items():
        if event not in HOOK_EVENTS and event not in CLAUDE_ONLY_EVENTS:
            problems.append(f"{source}: hooks.{event} is not an event pleat knows; not used")
            continue
        if not isinstance(tables, list):
            problems.append(f"{source}: hooks.{event} must be a list; not used")
            continue
        for index, table in enumerate(tables):
            label = f"hooks.{event}[{index}]"
            try:
                specs.extend(_claude_table(event, label, table, problems, source))
            except HookConfigError as error:
                problems.append(f"{source}: {error}; not used")
    return tuple(specs), tuple(problems)


def _claude_table(
    event: str, label: str, table: Any, problems: list[str], source: str
) -> list[HookSpec]:
    """The hooks of one matcher group of a settings file: each entry of its `hooks` list
    that pleat can run (one line in `problems` for each it cannot)."""
    if not isinstance(table, dict):
        raise HookConfigError(f"{label} must be an object with matcher and hooks")
    matcher = _matcher(label, table.get("matcher", ""))
    entries = table.get("hooks")
    if entries is None and "command" in table:  # pleat's own shape: one command, no list
        entries = [{k: v for k, v in table.items() if k != "matcher"}]
    if not isinstance(entries, list):
        raise HookConfigError(f"{label}.hooks must be a list")
    specs: list[HookSpec] = []
    for index, entry in enumerate(entries):
        where = f"{label}.hooks[{index}]"
        try:
            specs.append(_claude_entry(event, where, entry, matcher, problems, source))
        except HookConfigError as error:
            problems.append(f"{source}: {error}; that hook is not used")
    return specs


def _claude_entry(
    event: str, where: str, entry: Any, matcher: Matcher, problems: list[str], source: str
) -> HookSpec:
    """One entry of Claude Code's shape: a command hook, with its timeout, condition (`if`)
    and `onFailure`. Raises HookConfigError for one pleat cannot run as written."""
    if not isinstance(entry, dict):
        raise HookConfigError(f"{where} must be an object like {{type: command, command: ...}}")
    kind = entry.get("type", "command")
    if kind != "command":
        raise HookConfigError(f"{where} is a {quoted(kind)} hook; pleat runs command hooks only")
    plain: dict[str, Any] = {"command": entry.get("command")}
    if "sandbox" in entry:  # pleat's opt-in; Claude Code has no such key and ignores it
        plain["sandbox"] = entry["sandbox"]
    if "timeout" in entry:
        timeout = _lenient_timeout(entry["timeout"])
        if timeout is None:
            problems.append(
                f"{source}: {where}.timeout {quoted(entry['timeout'])} is not seconds; "
                f"{DEFAULT_HOOK_TIMEOUT_SECONDS:g} s it is"
            )
        else:
            plain["timeout"] = timeout
    spec = _spec(event, where, plain, matcher)
    condition = entry.get("if")
    if condition is not None:
        spec = replace(spec, condition=_condition(where, condition))
    return replace(spec, block_on_failure=entry.get("onFailure") == "block")


def _lenient_timeout(value: Any) -> float | None:
    """A settings file's timeout in seconds, brought into (0, MAX]; None when it is none."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value <= 0:
        return None
    return float(min(value, MAX_HOOK_TIMEOUT_SECONDS))


def _condition(where: str, text: Any) -> str:
    """Claude Code's `if` (a permission rule, `Bash(npm test*)`) as a rule in pleat's names;
    HookConfigError when it is not one (the hook must not run without it)."""
    from agent.claude_code.tools import pleat_rule
    from agent.permissions.rules import RuleError, parse_rule  # only when a hook has one

    if not isinstance(text, str):
        raise HookConfigError(f"{where}.if must be a permission rule, got {quoted(text)}")
    try:
        return str(parse_rule(pleat_rule(text)))
    except RuleError as error:
        raise HookConfigError(
            f"{where}.if {quoted(text)} is not a rule pleat reads: {error}"
        ) from None


def _events(value: Any) -> None:
    if not isinstance(value, dict):
        raise HookConfigError(
            f"hooks must be a table of events, e.g. [[hooks.PreToolUse]], got {quoted(value)}"
        )


def _tables(event: str, tables: Any) -> list[dict[str, Any]]:
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise HookConfigError(
            f"hooks.{event} must be an array of tables ([[hooks.{event}]]), got {quoted(tables)}"
        )
    return tables


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
            inherited = {"sandbox": table["sandbox"]} if "sandbox" in table else {}
            specs.append(_spec(event, where, {**inherited, **entry}, matcher))
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
    sandboxed = table.get("sandbox", False)
    if not isinstance(sandboxed, bool):
        raise HookConfigError(f"{label}.sandbox must be true or false, got {quoted(sandboxed)}")
    return HookSpec(
        event,
        command,
        matcher,
        float(timeout),
        timeout_given="timeout" in table,
        sandboxed=sandboxed,
    )


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
