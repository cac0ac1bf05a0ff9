"""Claude Code's settings, read as Claude Code reads them: the user's file < the project's
`.claude/settings.json` < `.claude/settings.local.json` (< the command line, which pleat's own
flags are), into the values pleat acts on, each named by where it came from.

What pleat acts on: `permissions` (`allow`, `ask`, `deny` in Claude Code's rule syntax,
`defaultMode`, `additionalDirectories`), `env`, `model`, `outputStyle`, `statusLine`, `hooks` and
`disableAllHooks` (agent/hooks/claude_settings.py), `enabledPlugins` and
`extraKnownMarketplaces` (plugins). Any other key is named in one line at start, never dropped
silently. A project's file takes effect in two parts (agent/claude_code/settings_file.py): its
deny and ask rules at once, the rest only once the user approved that exact content.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.claude_code.settings_file import (
    SettingsFile,
    project_settings,
    user_settings,
)
from sessions.approvals import Approvals
from sessions.short_text import quoted

# Where approvals of a project's settings files are kept, under $PLEAT_HOME: file -> the digest
# of what waits for an approval in it (its hooks, env, allow rules ...: SettingsFile.approvable).
SETTINGS_APPROVALS = Approvals("hook-approvals.json")
# The top-level keys pleat reads; `$schema` only names the file's format.
ACTED_ON = frozenset(
    {
        "permissions",
        "env",
        "model",
        "outputStyle",
        "statusLine",
        "hooks",
        "disableAllHooks",
        "enabledPlugins",
        "extraKnownMarketplaces",
        "$schema",
    }
)
# The keys of `permissions` pleat reads.
PERMISSION_KEYS = frozenset({"allow", "ask", "deny", "defaultMode", "additionalDirectories"})
# Claude Code's model aliases: they name no litellm model (which one they mean changes with
# Claude Code's releases), so a settings file's alias is said and not used.
MODEL_ALIASES = frozenset({"default", "sonnet", "opus", "haiku", "opusplan", "best"})
# A bare Claude model id (`claude-sonnet-4-5-20250929`): Anthropic's, as litellm names it.
BARE_CLAUDE_MODEL = re.compile(r"claude-[A-Za-z0-9.\-]+")
# An environment variable's name, as a settings file's `env` may set it.
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Variables no settings file's `env` may set: they say where pleat's own trust lives (its data
# and config, the approvals, Claude Code's user directory, the home), so a file setting them
# could move "the user's own" settings into a directory a sandboxed command writes (found by
# review).
ANCHOR_VARIABLE = re.compile(r"PLEAT_.*|CLAUDE_CONFIG_DIR|HOME|XDG_.*")
# Variables a project's `env` may not set (the user's own file may): each makes an unconfined
# program (a hook, a server, pleat's own git) load code from a path the value names, which an
# innocent-looking relative value (`PYTHONPATH=src`) points into the workspace a sandboxed
# command writes (found by review).
LOADER_VARIABLE = re.compile(
    r"PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|LD_.*|DYLD_.*|BASH_ENV|ENV|"
    r"ZDOTDIR|NODE_OPTIONS|NODE_PATH|PERL5LIB|PERL5OPT|RUBYOPT|RUBYLIB|GIT_.*|JAVA_TOOL_OPTIONS"
)


@dataclass
class ClaudeSettings:
    """The merged settings: each value pleat acts on with the label of the file it came from,
    the project files waiting for an approval, and one line for each thing not used."""

    files: list[SettingsFile] = field(default_factory=list)
    waiting: list[SettingsFile] = field(default_factory=list)
    # Rules in pleat's names, each with its file's label: (rule, label).
    allow: list[tuple[str, str]] = field(default_factory=list)
    ask: list[tuple[str, str]] = field(default_factory=list)
    deny: list[tuple[str, str]] = field(default_factory=list)
    # pleat's config keys from the user's file, and from the project's approved files (which
    # config.toml's values sit between: agent/config.py).
    user_values: dict[str, Any] = field(default_factory=dict)
    project_values: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    status_line: tuple[Any, str] | None = None  # (the value, its file's label)
    enabled_plugins: dict[str, bool] = field(default_factory=dict)
    marketplaces: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def plugin_settings(self) -> tuple[dict[str, bool], dict[str, Any]]:
        """enabledPlugins and extraKnownMarketplaces, as agent/plugins/loaded.py takes them."""
        return self.enabled_plugins, self.marketplaces

    def rules(self, kind: str) -> list[tuple[str, str]]:
        return {"allow": self.allow, "ask": self.ask, "deny": self.deny}[kind]


def is_approved(found: SettingsFile) -> bool:
    """Whether the user approved exactly what waits for an approval in this project file."""
    return SETTINGS_APPROVALS.approved(found.key, found.approval_digest)


def approve(found: SettingsFile) -> None:
    """Remember the approval of this file's content. Raises OSError when it cannot be written."""
    SETTINGS_APPROVALS.approve(found.key, found.approval_digest)


def read_claude_settings(
    workspace: Path, environ: Mapping[str, str], *, approve_all: bool = False
) -> ClaudeSettings:
    """Every Claude Code settings file of this run, merged (`approve_all`: --yes, which approves
    a project's files as it approves its hooks and .mcp.json). Never raises."""
    from agent.claude_code import run_writes  # only for a file that exists: see _rules

    merged = ClaudeSettings()
    user = user_settings(environ)
    files = [user, *(f for f in project_settings(workspace) if f.key != user.key)]
    for found in files:  # a damaged file is said by the hooks' reading (claude_settings.py)
        if not found.data:
            continue
        merged.files.append(found)
        _unread_keys(found, merged.notes)
        trusted = found.scope == "user" or not found.approval_digest or is_approved(found)
        yes = approve_all and not run_writes.written_by_a_run(found.key)  # claude_settings.py
        _take(found, merged, trusted=trusted or yes)
        if not trusted and not yes:
            merged.waiting.append(found)
    return merged


def _unread_keys(found: SettingsFile, notes: list[str]) -> None:
    """One line naming the keys of a file that pleat does not act on."""
    unread = sorted(set(found.data) - ACTED_ON)
    permissions = found.data.get("permissions")
    if isinstance(permissions, dict):
        unread += sorted(f"permissions.{k}" for k in set(permissions) - PERMISSION_KEYS)
    if unread:
        notes.append(
            f"{found.label}: pleat does not act on {', '.join(unread)} "
            "(docs/CLAUDE-CODE.md lists what it reads)"
        )


def _take(found: SettingsFile, merged: ClaudeSettings, *, trusted: bool) -> None:
    """Take one file's values: its deny and ask rules always, the rest when `trusted`."""
    data, label = found.data, found.label
    permissions = data.get("permissions", {})
    if not isinstance(permissions, dict):
        merged.notes.append(f"{label}: permissions must be an object; not used")
        permissions = {}
    kinds = ("deny", "ask", "allow") if trusted else ("deny", "ask")
    for kind in kinds:
        merged.rules(kind).extend(
            (rule, label) for rule in _rules(permissions, kind, label, merged)
        )
    if not trusted:
        return
    values = merged.user_values if found.scope == "user" else merged.project_values
    if "defaultMode" in permissions:
        values["permission_mode"] = (permissions["defaultMode"], label)
    if "additionalDirectories" in permissions:
        directories = _strings(permissions["additionalDirectories"])
        if directories is None:
            merged.notes.append(
                f"{label}: permissions.additionalDirectories must be a list of paths"
            )
        else:
            base = Path(found.key).parent.parent if found.scope != "user" else Path.home()
            resolved = [str(base / Path(d).expanduser()) for d in directories]
            previous = values.get("add_dirs", ([], label))[0]
            values["add_dirs"] = ([*previous, *resolved], label)
    if "model" in data:
        model = _model(data["model"], label, merged.notes)
        if model is not None:
            values["model"] = (model, label)
    if "outputStyle" in data:
        values["output_style"] = (data["outputStyle"], label)
    if "env" in data:
        merged.env.update(_env(data["env"], label, merged.notes, project=found.scope != "user"))
    if "statusLine" in data and data.get("disableAllHooks") is not True:  # as Claude Code
        merged.status_line = (data["statusLine"], label)
    if isinstance(plugins := data.get("enabledPlugins"), dict):
        merged.enabled_plugins.update({k: v is True for k, v in plugins.items()})
    elif plugins is not None:
        merged.notes.append(f"{label}: enabledPlugins must be an object; not used")
    if isinstance(markets := data.get("extraKnownMarketplaces"), dict):
        merged.marketplaces.update(markets)
    elif markets is not None:
        merged.notes.append(f"{label}: extraKnownMarketplaces must be an object; not used")


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


def _rules(
    permissions: Mapping[str, Any], kind: str, label: str, merged: ClaudeSettings
) -> list[str]:
    """A file's rules of one kind, in pleat's names (checked by agent/config.py). The rules'
    translation is imported here, for a file that has some: most starts read none, and the first
    frame waits for these settings."""
    from agent.claude_code.tools import pleat_rules

    if kind not in permissions:
        return []
    rules = _strings(permissions[kind])
    if rules is None:
        merged.notes.append(f"{label}: permissions.{kind} must be a list of rules; not used")
        return []
    return [each for rule in rules for each in pleat_rules(rule, Path.home())]


def _model(value: Any, label: str, notes: list[str]) -> str | None:
    """A settings file's model as litellm names it, or None (said) for one pleat cannot use."""
    if not isinstance(value, str) or not value.strip():
        notes.append(f"{label}: model must be a model's name, got {quoted(value)}; not used")
        return None
    model = value.strip()
    base = model.split("[", 1)[0]  # `sonnet[1m]`: an alias with Claude Code's context option
    if base in MODEL_ALIASES:
        notes.append(
            f"{label}: model {quoted(model)} is a Claude Code alias, not a model's name; not "
            "used (write e.g. anthropic/claude-sonnet-4-5)"
        )
        return None
    return f"anthropic/{model}" if BARE_CLAUDE_MODEL.fullmatch(model) else model


def _env(value: Any, label: str, notes: list[str], *, project: bool) -> dict[str, str]:
    """A settings file's `env`: names and string values (numbers and booleans as Claude Code
    writes them, `"1"` or `1`, taken as text); a bad entry is said and left out, and so is one
    that would move pleat's trust (ANCHOR_VARIABLE) or, from a `project` file, make programs
    load code from elsewhere (LOADER_VARIABLE)."""
    if not isinstance(value, dict):
        notes.append(f"{label}: env must be an object of variables; not used")
        return {}
    env: dict[str, str] = {}
    for name, item in value.items():
        if isinstance(item, bool):
            item = "true" if item else "false"
        elif isinstance(item, int | float):
            item = str(item)
        if not VARIABLE_NAME.fullmatch(name) or not isinstance(item, str) or "\x00" in item:
            notes.append(f"{label}: env.{name} is not a variable with a text value; not used")
            continue
        if ANCHOR_VARIABLE.fullmatch(name) or (project and LOADER_VARIABLE.fullmatch(name)):
            whose = "a settings file" if ANCHOR_VARIABLE.fullmatch(name) else "a project's file"
            notes.append(f"{label}: env.{name} is not set: {whose} may not set it")
            continue
        env[name] = item
    return env
