"""The language servers' settings: config.toml's `[lsp]` table (or `lsp = false`), read strictly."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sessions.short_text import quoted

# Seconds a server has to answer `initialize`: pylsp and pyright answer in about a second, a
# cold rust-analyzer or clangd in a few; 10 s covers them on a busy machine, and a server that
# hangs costs the first edit no more than this (then it is left alone for the session).
START_SECONDS = 10.0
# Seconds an edit waits for the server's diagnostics of the new text: pylsp publishes some
# 0.5 s after a change (its debounce), ruff and pyright well within a second; past 3 s the edit
# answers without them rather than keep the model waiting on a slow checker.
DIAGNOSTICS_SECONDS = 3.0
# The most either wait may be set to: a minute is already longer than anyone waits on an edit.
MAX_WAIT_SECONDS = 60.0
# The keys of `[lsp]` itself; any other key names a language's table.
TOP_KEYS = ("enabled", "start_seconds", "diagnostics_seconds")
# The keys of a language's table, `[lsp.python]`.
LANGUAGE_KEYS = ("command", "extensions", "enabled")


class LspSettingsError(ValueError):
    """A setting of `[lsp]` is wrong; the message names it (one line)."""


@dataclass(frozen=True)
class LanguageSetting:
    """One `[lsp.LANGUAGE]` table: the server's command (`()`: this language has none, so no
    server is looked for), and extensions that are this language's besides those pleat knows."""

    language: str
    command: tuple[str, ...] | None = None  # None: the well-known servers found on PATH
    extensions: tuple[str, ...] = ()
    enabled: bool = True


@dataclass(frozen=True)
class LspSettings:
    """Whether language servers run at all, the waits, and the languages configured."""

    enabled: bool = True
    start_seconds: float = START_SECONDS
    diagnostics_seconds: float = DIAGNOSTICS_SECONDS
    languages: tuple[LanguageSetting, ...] = ()

    def language(self, name: str) -> LanguageSetting | None:
        """The table of `name`, when config.toml has one."""
        return next((item for item in self.languages if item.language == name), None)


def _switch(label: str, value: Any) -> bool:
    """A boolean, or a word for one (the environment's form: PLEAT_LSP=off)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise LspSettingsError(f"{label} must be true or false, got {quoted(value)}")


def _seconds(label: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LspSettingsError(f"{label} must be a number of seconds, got {quoted(value)}")
    if not (math.isfinite(value) and 0 < value <= MAX_WAIT_SECONDS):
        raise LspSettingsError(f"{label} must be between 0 and {MAX_WAIT_SECONDS:g} seconds")
    return float(value)


def _words(label: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise LspSettingsError(f"{label} must be a list of strings")
    return tuple(value)


def _language(name: str, table: Any, label: str) -> LanguageSetting:
    if not isinstance(table, dict):
        raise LspSettingsError(f"{label}.{name} must be a table (command = [...])")
    unknown = sorted(set(table) - set(LANGUAGE_KEYS))
    if unknown:
        known = ", ".join(LANGUAGE_KEYS)
        raise LspSettingsError(f"{label}.{name}: unknown key {unknown[0]!r} (known: {known})")
    command = None
    if "command" in table:
        command = _words(f"{label}.{name}.command", table["command"])
        if command and not command[0].strip():
            raise LspSettingsError(f"{label}.{name}.command starts with an empty program name")
    extensions = _words(f"{label}.{name}.extensions", table.get("extensions", []))
    bad = [ext for ext in extensions if not ext.startswith(".") or len(ext) < 2]
    if bad:
        raise LspSettingsError(f'{label}.{name}.extensions: {bad[0]!r} is not like ".py"')
    enabled = _switch(f"{label}.{name}.enabled", table.get("enabled", True))
    extensions = tuple(ext.lower() for ext in extensions)
    return LanguageSetting(name, command, extensions, enabled and command != ())


def parse_lsp(value: Any, label: str = "lsp") -> LspSettings:
    """The settings `value` holds: `false`/`true` (or a word for one), or the `[lsp]` table.
    Raises LspSettingsError."""
    if not isinstance(value, dict):
        return LspSettings(enabled=_switch(label, value))
    top = {key: value[key] for key in TOP_KEYS if key in value}
    languages = tuple(
        _language(name, table, label) for name, table in value.items() if name not in TOP_KEYS
    )
    return LspSettings(
        enabled=_switch(f"{label}.enabled", top.get("enabled", True)),
        start_seconds=_seconds(f"{label}.start_seconds", top.get("start_seconds", START_SECONDS)),
        diagnostics_seconds=_seconds(
            f"{label}.diagnostics_seconds", top.get("diagnostics_seconds", DIAGNOSTICS_SECONDS)
        ),
        languages=languages,
    )
