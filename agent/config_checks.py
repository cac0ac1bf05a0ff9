"""The settings' checks beyond their types: each key's allowed values, and how it may be written."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.model.request_shape import THINKING_LEVELS, THINKING_OFF
from agent.model.settings import VISION_AUTO, VISION_OFF, VISION_ON
from agent.permissions.modes import CLAUDE_ALIASES, MODES
from sessions.short_text import quoted
from tools.command_limits import MAX_TIMEOUT_SECONDS
from tools.sandbox.modes import SANDBOX_MODES

# How errors name the environment as the source of a setting.
ENVIRONMENT = "environment"


class ConfigError(Exception):
    """A bad setting: the message names the key and where it came from."""


# Checks beyond the type, per key: (predicate, what a good value is).
# Longest wait for a model's next byte: past an hour, a silent stream is dead, not slow.
MAX_REQUEST_TIMEOUT_SECONDS = 3_600
# Model calls in one request at most: far past any real task (the default is 200), it keeps a
# typo like 1e9 from making a looping model unstoppable.
MAX_TOOL_ITERATIONS = 10_000
# Idle seconds before a background fold, at most a day: later than that is "never" (use 0).
MAX_IDLE_SECONDS = 86_400
CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "max_tool_iterations": (
        lambda v: 1 <= v <= MAX_TOOL_ITERATIONS,
        f"an integer from 1 to {MAX_TOOL_ITERATIONS}",
    ),
    "command_timeout": (
        lambda v: 0 < v <= MAX_TIMEOUT_SECONDS,
        f"seconds in (0, {MAX_TIMEOUT_SECONDS}]",
    ),
    "request_timeout": (
        lambda v: 0 < v <= MAX_REQUEST_TIMEOUT_SECONDS,
        f"seconds in (0, {MAX_REQUEST_TIMEOUT_SECONDS}]",
    ),
    "max_retries": (lambda v: 0 <= v <= 10, "an integer from 0 to 10"),
    "idle_compaction_seconds": (
        lambda v: 0 <= v <= MAX_IDLE_SECONDS,
        f"seconds from 0 to {MAX_IDLE_SECONDS} (0 disables idle compaction)",
    ),
    "api_base": (lambda v: v.startswith(("http://", "https://")), "an http(s) URL"),
    "local_model_servers": (
        lambda v: all(url.startswith(("http://", "https://")) for url in v),
        'a list of http(s) URLs, e.g. ["http://localhost:11434"]',
    ),
    "max_budget_usd": (lambda v: v > 0, "dollars > 0"),
    "permission_mode": (
        lambda v: v in MODES,
        f"one of {', '.join(MODES)} (or Claude Code's {', '.join(CLAUDE_ALIASES)})",
    ),
    "thinking": (
        lambda v: v in (THINKING_OFF, *THINKING_LEVELS) or (v.isdigit() and int(v) >= 1_024),
        'off, low, medium, high, or a token budget of at least 1024 (e.g. "8000")',
    ),
    "vision": (lambda v: v in (VISION_AUTO, VISION_ON, VISION_OFF), "auto, true or false"),
    "sandbox": (lambda v: v in SANDBOX_MODES, f"one of {', '.join(SANDBOX_MODES)}"),
    "notify": (lambda v: v in ("bell", "osc9", "off"), "bell, osc9 or off"),
    "editor_mode": (lambda v: v in ("normal", "vim"), "normal or vim"),
}
# Settings written as a word or a number (TOML `thinking = 8000` as well as "8000").
WORD_OR_NUMBER = frozenset({"thinking"})
# Settings written as a word or a boolean (TOML `vision = true` as well as "auto").
WORD_OR_BOOL = frozenset({"vision"})


def only_in_file(label: str, source: str, what: str, path: Path) -> None:
    """Refuse a setting that runs a command (hooks, the status line) from the environment or a
    flag: `what` ("hooks are") is set in the config file only."""
    if source in (ENVIRONMENT, "flag"):
        raise ConfigError(f"{source}: {label}: {what} set in {path} only")


def checked_rules(label: str, value: Any, source: str, *, written: bool) -> tuple[str, ...]:
    """A list of permission rules: a TOML array of strings (`written`, from the environment:
    the array as TOML text, PLEAT_ALLOW='["run_command(pytest *)"]'); each one checked and kept
    in its plain form."""
    example = '["run_command(pytest *)", "edit_file"]'
    if written and isinstance(value, str):
        try:
            parsed = tomllib.loads(f"rules = {value}")
        except (tomllib.TOMLDecodeError, RecursionError):  # RecursionError: [[[[... nested
            parsed = {}
        if list(parsed) != ["rules"]:  # not TOML, or more than one array (`[]\nx = 1`)
            raise ConfigError(
                f"{source}: {label} must be a TOML array of rules, e.g. {example}, "
                f"got {quoted(value)}"
            )
        value = parsed["rules"]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f"{source}: {label} must be a list of rules, e.g. {example}, got {quoted(value)}"
        )
    from agent.permissions.rules import RuleError, parse_rule  # only when rules are given

    rules: list[str] = []
    for index, text in enumerate(value):
        try:
            rules.append(str(parse_rule(text)))
        except RuleError as error:
            raise ConfigError(
                f"{source}: {label}[{index}] {quoted(text)} is not a rule: {error}"
            ) from None
    return tuple(rules)
