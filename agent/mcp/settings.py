"""One MCP server's settings, checked: a `[mcp_servers.NAME]` table or a `.mcp.json` entry.

config.toml's tables take `command`, `args`, `env`, `cwd` (a server pleat starts and talks to on
its stdin and stdout) or `url` and `headers` (a streamable HTTP server), plus `enabled`,
`startup_timeout_sec` and `tool_timeout_sec` (Codex's names for the same settings). Every bad
value is one line naming the server and the key. A project's `.mcp.json` entries (Claude Code's
format: `type`, `command`, `args`, `env`, `url`, `headers`) are read into the same settings.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from sessions.secret_names import holds_secret
from sessions.short_text import quoted

# Seconds a server has to start and list its tools: a server run through npx or uvx may first
# download its package (tens of seconds on a cold cache); past half a minute it is reported as
# failed and the others work. Codex's default is 10 s, which users of npx servers often raise.
DEFAULT_STARTUP_TIMEOUT_SECONDS = 30.0
# Seconds one tool call may take: a call blocks the turn as a command does, so the same default
# as run_command's (tools/shell.py); a server whose tools run longer says so in its table.
DEFAULT_TOOL_TIMEOUT_SECONDS = 120.0
# Longest time limit a table may set: an hour, past which a silent server is dead, not slow.
MAX_TIMEOUT_SECONDS = 3_600.0
# Characters of a server's name: it is part of every tool name, `mcp__<server>__<tool>`, which
# providers cap at 64 characters.
MAX_NAME_CHARS = 48
# Characters that may not appear in a name, a command, an argument, a header or a variable:
# control characters, which a terminal would act on when the server is listed.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# `${VAR}` or `${VAR:-default}` in a value: replaced from the user's environment when the server
# starts (Claude Code's .mcp.json convention), so a key need not be written into the file.
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
# A default that holds another `${`: not supported (Claude Code's convention has none), and read
# by VARIABLE it would end at the inner `}`, leaving a stray one; such a value is an error.
NESTED_DEFAULT = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:-[^}]*\$\{")
# Variables a project's .mcp.json may not read from the user's environment: names that look
# like credentials (OPENAI_API_KEY, GITHUB_TOKEN, DB_PASS, AWS_SECRET_ACCESS_KEY, BASIC_AUTH,
# GOOGLE_APPLICATION_CREDENTIALS, SSH_PRIVATE_KEY, SESSION_COOKIE). The file comes with the
# repository: anyone who can commit to it could otherwise send the user's keys to a server (or
# a URL) of their choosing, hidden in a `${VAR}` the user approves without reading twice.
# Wider than sessions/secret_names.py's (AUTH, PASS, CRED, PRIVATE, COOKIE): a false match
# only means that server's table belongs in config.toml.
PROJECT_SECRET_VARIABLE = re.compile(r"KEY|TOKEN|SECRET|PASS|CRED|AUTH|PRIVATE|COOKIE", re.I)
# How the withheld variables are explained, after their names (at approval, in /mcp, headless).
WITHHELD_WHY = (
    "not taken from your environment: a project's .mcp.json may not read variables that name "
    "or hold secrets (configure the server in config.toml to pass them)"
)
# The keys of a config.toml table, and which transport each belongs to.
STDIO_KEYS = frozenset({"command", "args", "env", "cwd"})
HTTP_KEYS = frozenset({"url", "headers"})
COMMON_KEYS = frozenset({"enabled", "startup_timeout_sec", "tool_timeout_sec"})
# `sandbox = true` runs a stdio server in the sandbox, as the model's commands run. Without it a
# server runs as the user (as in Claude Code and Codex): it is the user's, configured by them or
# approved with its command shown. A project's .mcp.json may say it too (it only confines).
USER_STDIO_KEYS = frozenset({"sandbox"})
TABLE_KEYS = STDIO_KEYS | HTTP_KEYS | COMMON_KEYS | USER_STDIO_KEYS

Transport = Literal["stdio", "http"]


class SettingsError(ValueError):
    """A bad server setting: one line naming the server and the key."""


@dataclass(frozen=True)
class ServerSettings:
    """How to reach one MCP server, and its time limits. Values may hold `${VAR}`: see
    expanded()."""

    name: str
    source: str  # where it was configured: config.toml's path, or .mcp.json
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    enabled: bool = True
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT_SECONDS
    tool_timeout: float = DEFAULT_TOOL_TIMEOUT_SECONDS
    project: bool = False  # from a project's .mcp.json: it may not read secrets (withheld())
    sandboxed: bool = False  # `sandbox = true`: a stdio server runs in the sandbox (tools/sandbox/)

    @property
    def transport(self) -> Transport:
        return "stdio" if self.command is not None else "http"

    def target(self) -> str:
        """What it runs or where it is: `command args...`, or the URL (as written)."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return self.url or ""

    def values(self) -> list[str]:
        """Every value that may hold a `${VAR}`, as written."""
        env = [value for _, value in self.env]
        headers = [value for _, value in self.headers]
        fixed = [self.command, self.cwd, self.url]
        return [*(v for v in fixed if v is not None), *self.args, *env, *headers]

    def withheld(self, environ: Mapping[str, str]) -> list[str]:
        """The variables a project server refers to that it is not given (sorted): named like a
        secret, or set to a value holding a secret of `environ` (PROJECT_SECRET_VARIABLE). A
        config.toml server's are all its to read: none."""
        if not self.project:
            return []
        secrets = project_secrets(environ)
        names = {match.group(1) for value in self.values() for match in VARIABLE.finditer(value)}
        return sorted(
            name
            for name in names
            if PROJECT_SECRET_VARIABLE.search(name)
            or any(secret in environ.get(name, "") for secret in secrets)
        )

    def inherited(self, environ: Mapping[str, str]) -> dict[str, str]:
        """What a project server may inherit of `environ` (already without the secrets commands
        never get): no variable named like a secret by the wider PROJECT_SECRET_VARIABLE, none
        holding such a secret. A config.toml server inherits all of `environ`."""
        if not self.project:
            return dict(environ)
        secrets = project_secrets(environ)
        return {
            name: value
            for name, value in environ.items()
            if not PROJECT_SECRET_VARIABLE.search(name) and not any(s in value for s in secrets)
        }

    def expanded(self, environ: Mapping[str, str]) -> ServerSettings:
        """The settings with every `${VAR}` (or `${VAR:-default}`) replaced from `environ`; a
        variable withheld() from a project server counts as unset. Raises SettingsError naming
        a variable that is unset (or withheld) and has no default."""
        withheld = set(self.withheld(environ))

        def one(text: str) -> str:
            if NESTED_DEFAULT.search(text):
                raise SettingsError(
                    f"MCP server {self.name!r}: a default may not hold another ${{...}} "
                    "(write ${VAR:-text})"
                )

            def replace(match: re.Match[str]) -> str:
                name, default = match.group(1), match.group(2)
                value = None if name in withheld else environ.get(name)
                if value is None and default is None:
                    why = WITHHELD_WHY if name in withheld else "which is not set"
                    raise SettingsError(f"MCP server {self.name!r} uses ${{{name}}}, {why}")
                return value if value is not None else default

            return VARIABLE.sub(replace, text)

        def pairs(items: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
            return tuple((key, one(value)) for key, value in items)

        return dataclasses.replace(
            self,
            command=None if self.command is None else one(self.command),
            args=tuple(one(arg) for arg in self.args),
            env=pairs(self.env),
            cwd=None if self.cwd is None else os.path.expanduser(one(self.cwd)),
            url=None if self.url is None else one(self.url),
            headers=pairs(self.headers),
        )


def check_name(name: str, where: str) -> str:
    """A server's name as written, or SettingsError."""
    if not name or len(name) > MAX_NAME_CHARS or CONTROL.search(name) or name != name.strip():
        raise SettingsError(
            f"{where}: the server name {quoted(name)} must be 1 to {MAX_NAME_CHARS} printable "
            "characters (e.g. github, my-docs)"
        )
    return name


def _text(label: str, value: Any) -> str:
    if not isinstance(value, str) or not value or CONTROL.search(value):
        raise SettingsError(f"{label} must be a non-empty string, got {quoted(value)}")
    return value


def _texts(label: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SettingsError(f"{label} must be a list of strings, got {quoted(value)}")
    for item in value:
        if "\x00" in item:
            raise SettingsError(f"{label} holds a NUL character")
    return tuple(value)


def _table(label: str, value: Any, *, header: bool = False) -> tuple[tuple[str, str], ...]:
    """A table of string values (env, headers): names checked, pairs sorted by name."""
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise SettingsError(f"{label} must be a table of strings, got {quoted(value)}")
    name_form = r"[A-Za-z0-9!#$%&'*+.^_`|~-]+" if header else r"[A-Za-z_][A-Za-z0-9_]*"
    for key, item in value.items():
        if not re.fullmatch(name_form, key):
            raise SettingsError(f"{label}: {quoted(key)} is not a valid name")
        if CONTROL.search(item.replace("\t", "")):
            raise SettingsError(f"{label}.{key} holds a control character")
    return tuple(sorted(value.items()))


def _seconds(label: str, value: Any) -> float:
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if number is None or not math.isfinite(number) or not 0 < number <= MAX_TIMEOUT_SECONDS:
        raise SettingsError(
            f"{label} must be seconds in (0, {MAX_TIMEOUT_SECONDS:,.0f}], got {quoted(value)}"
        )
    return float(number)


def _url(label: str, value: Any) -> str:
    url = _text(label, value)
    if not url.startswith(("http://", "https://")) and not url.startswith("${"):
        raise SettingsError(f"{label} must be an http(s) URL, got {quoted(value)}")
    return url


def project_secrets(environ: Mapping[str, str]) -> list[str]:
    """The values of `environ` a project server may not see, in its variables or in others':
    those of variables named like secrets, the wider way (PROJECT_SECRET_VARIABLE), long enough
    and not file paths (sessions/secret_names.py's rule)."""
    return [
        value
        for name, value in environ.items()
        if holds_secret(name, value) or holds_secret(name, value, PROJECT_SECRET_VARIABLE)
    ]


def from_table(name: str, table: Any, source: str, label: str) -> ServerSettings:
    """One `[mcp_servers.NAME]` table of config.toml (`label` names it as the user wrote it,
    e.g. mcp_servers.github). Raises SettingsError."""
    check_name(name, label)
    if not isinstance(table, dict):
        raise SettingsError(f"{label} must be a table, e.g. [mcp_servers.{name}]")
    unknown = sorted(set(table) - TABLE_KEYS)
    if unknown:
        known = ", ".join(sorted(TABLE_KEYS))
        raise SettingsError(f"unknown setting {label}.{unknown[0]} (known: {known})")
    return _settings(name, table, source, label)


def from_claude_entry(name: str, entry: Any, source: str, where: str = "") -> ServerSettings:
    """One entry of an `mcpServers` object in Claude Code's format (`type` stdio or http; keys
    it does not know are left alone), plus pleat's `sandbox`: a server of the user's own
    ~/.claude.json. `where` is the object's path in the file (e.g. `projects["/w"].`) for the
    error lines. Raises SettingsError."""
    label = f"{source}: {where}mcpServers.{name}"
    check_name(name, source)
    if not isinstance(entry, dict):
        raise SettingsError(f"{label} must be an object")
    kind = entry.get("type", "http" if "url" in entry and "command" not in entry else "stdio")
    if kind not in ("stdio", "http"):
        raise SettingsError(
            f"{label}: type {quoted(kind)} is not supported (stdio or http; SSE servers "
            "usually also serve streamable HTTP)"
        )
    keys = STDIO_KEYS | USER_STDIO_KEYS if kind == "stdio" else HTTP_KEYS
    table = {k: v for k, v in entry.items() if k in keys}
    return _settings(name, table, source, label)


def from_project_entry(name: str, entry: Any, source: str) -> ServerSettings:
    """One entry of a project's `.mcp.json` (Claude Code's format): a project server (it may
    not read secrets), run as the user once the file is approved, or confined when its entry
    says `"sandbox": true`. Raises SettingsError."""
    return dataclasses.replace(from_claude_entry(name, entry, source), project=True)


def _settings(name: str, table: dict[str, Any], source: str, label: str) -> ServerSettings:
    stdio = (STDIO_KEYS | USER_STDIO_KEYS) & table.keys()
    http = HTTP_KEYS & table.keys()
    if "command" in table and "url" in table:
        raise SettingsError(f"{label}: give command (stdio) or url (streamable HTTP), not both")
    if "command" not in table and "url" not in table:
        raise SettingsError(f"{label}: give command (a server to run) or url (an HTTP server)")
    if "command" in table and http:
        raise SettingsError(f"{label}: {sorted(http)[0]} is for url servers, not command ones")
    if "url" in table and stdio:
        raise SettingsError(f"{label}: {sorted(stdio)[0]} is for command servers, not url ones")
    enabled, sandboxed = table.get("enabled", True), table.get("sandbox", False)
    for key, value in (("enabled", enabled), ("sandbox", sandboxed)):
        if not isinstance(value, bool):
            raise SettingsError(f"{label}.{key} must be true or false, got {quoted(value)}")
    return ServerSettings(
        name=name,
        source=source,
        command=_text(f"{label}.command", table["command"]) if "command" in table else None,
        args=_texts(f"{label}.args", table.get("args", [])),
        env=_table(f"{label}.env", table.get("env", {})),
        cwd=_text(f"{label}.cwd", table["cwd"]) if "cwd" in table else None,
        url=_url(f"{label}.url", table["url"]) if "url" in table else None,
        headers=_table(f"{label}.headers", table.get("headers", {}), header=True),
        enabled=enabled,
        sandboxed=sandboxed,
        startup_timeout=_seconds(
            f"{label}.startup_timeout_sec",
            table.get("startup_timeout_sec", DEFAULT_STARTUP_TIMEOUT_SECONDS),
        ),
        tool_timeout=_seconds(
            f"{label}.tool_timeout_sec",
            table.get("tool_timeout_sec", DEFAULT_TOOL_TIMEOUT_SECONDS),
        ),
    )


def from_config(value: Any, source: str) -> tuple[ServerSettings, ...]:
    """The `[mcp_servers]` table of config.toml: one server per sub-table, sorted by name.
    Raises SettingsError."""
    if not isinstance(value, dict):
        raise SettingsError(
            "mcp_servers must be tables in config.toml, e.g. [mcp_servers.docs] with "
            'command = "docs-server"'
        )
    return tuple(
        from_table(name, value[name], source, f"mcp_servers.{name}") for name in sorted(value)
    )
