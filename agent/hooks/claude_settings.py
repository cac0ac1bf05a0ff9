"""Claude Code's settings files as a source of hooks, where Claude Code users keep them.

The user's `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json` when that is set, as
Claude Code reads it) is the user's own: its hooks run as config.toml's do. A project's
`.claude/settings.json` and `.claude/settings.local.json` come with the repository, so anyone
who can commit to it could make pleat run a command: their hooks run only once the user has
approved them for this workspace (the TUI asks at start; headless, --yes approves), as a
project's .mcp.json is (agent/mcp/project_file.py). The approval is kept by file with the
SHA-256 of what in it waits for one (its hooks, and every other setting that would run or shape
a process outside the sandbox: agent/claude_code/settings_file.py), so any change to those asks
again; its deny and ask rules hold without one.

Every file is read as hostile input: never past MAX_SETTINGS_BYTES, a project's never through a
link out of the workspace, parsed with the limits of sessions/model_json.py, and its hooks block
read leniently (agent/hooks/config.py: what pleat cannot run is left out with one line).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from agent.claude_code.run_writes import written_by_a_run
from agent.claude_code.settings import SETTINGS_APPROVALS
from agent.claude_code.settings_file import (
    SettingsFile,
    project_settings,
    user_settings,
)
from agent.hooks.answer import one_line
from agent.hooks.config import HookSpec, parse_claude_hooks
from agent.hooks.runner import HookSet

# Why --yes leaves a file waiting (agent/claude_code/run_writes.py).
WRITTEN_BY_A_RUN = (
    "{label} was changed while pleat ran (a command may have written it), so --yes does not "
    "approve it: approve it in pleat's terminal UI, which shows all of it"
)
# Where approvals of a project's settings files are kept (agent/claude_code/settings.py).
HOOK_APPROVALS = SETTINGS_APPROVALS
# Characters of one entry shown in the approval question (a rule, a variable's value, a plugin):
# a few lines of the screen; a longer one says how much is not shown, so nothing hides past a
# cut (found by review: a long value first, the dangerous entry last).
SETTING_CHARS = 500


@dataclass(frozen=True)
class SettingsHooks:
    """The hooks of one settings file: how lines name the file, the key its approval is kept
    by, the hooks, the digest of what waits for an approval in it (its hooks and every other
    setting that would run or shape a process outside the sandbox), one line for each part not
    used, and the other settings that wait with the hooks (shown in the question)."""

    label: str
    key: str
    specs: tuple[HookSpec, ...]
    digest: str
    problems: tuple[str, ...] = ()
    # Claude Code's `disableAllHooks: true`: the file runs none (the user's own file: no file
    # of Claude Code's does; a project's cannot turn off the user's hooks).
    disables: bool = False
    others: tuple[str, ...] = ()


def _hooks_of(found: SettingsFile, user: bool) -> SettingsHooks | None:
    """The hooks of one file (None: no file, or nothing in it to run or approve)."""
    if found.problems and not found.data:
        return SettingsHooks(found.label, found.key, (), "", found.problems)
    data = found.data
    if not data:
        return None
    others = () if user else _other_settings(found)
    if data.get("disableAllHooks") is True:
        whose = "no Claude Code settings file's hooks are" if user else "its hooks are not"
        off = f"{found.label} sets disableAllHooks: {whose} used"
        return SettingsHooks(
            found.label, found.key, (), found.approval_digest, (off,), True, others
        )
    if "hooks" not in data and not others:
        return None
    specs, problems = (
        ((), ()) if "hooks" not in data else parse_claude_hooks(data["hooks"], found.label)
    )
    digest = found.approval_digest
    return SettingsHooks(found.label, found.key, specs, digest, problems, False, others)


def _other_settings(found: SettingsFile) -> tuple[str, ...]:
    """Each setting other than hooks that waits for the approval, one entry a line (a rule, a
    variable, a plugin), as `name: value` (JSON, cut at SETTING_CHARS with what is left said)."""
    lines: list[str] = []

    def add(name: str, value: object) -> None:
        if isinstance(value, dict) and name != "statusLine":
            for key, item in value.items():
                add(f"{name}.{key}", item)
        elif isinstance(value, list):
            for item in value:
                add(name, item)
        else:
            text = json.dumps(value, ensure_ascii=False)
            more = len(text) - SETTING_CHARS
            lines.append(
                f"{name}: {text[:SETTING_CHARS]}"
                + (f"… ({more:,} more characters)" if more > 0 else "")
            )

    for key, value in found.approvable.items():
        if key not in ("hooks", "disableAllHooks"):
            add(key, value)
    return tuple(lines)


def user_settings_hooks(environ: Mapping[str, str]) -> SettingsHooks | None:
    """The hooks of the user's own Claude Code settings file."""
    return _hooks_of(user_settings(environ), user=True)


def project_settings_hooks(workspace: Path) -> list[SettingsHooks]:
    """The hooks (and other settings waiting for an approval) of the workspace's Claude Code
    settings files (those that have any)."""
    found = [_hooks_of(f, user=False) for f in project_settings(workspace)]
    return [hooks for hooks in found if hooks is not None]


def is_approved(hooks: SettingsHooks) -> bool:
    return HOOK_APPROVALS.approved(hooks.key, hooks.digest)


def approve(hooks: SettingsHooks) -> None:
    """Remember the approval of this file's content. Raises OSError when it cannot be written."""
    HOOK_APPROVALS.approve(hooks.key, hooks.digest)


@dataclass(frozen=True)
class RunHooks:
    """A run's hooks as they start: the set (config.toml's, the user's settings file's, and
    the project's already approved), and the project files still waiting for approval."""

    hooks: HookSet
    waiting: tuple[SettingsHooks, ...]


def gather_hooks(
    configured: tuple[HookSpec, ...],
    workspace: Path,
    environ: Mapping[str, str] | None = None,
    *,
    approve_all: bool = False,
) -> RunHooks:
    """Every source of hooks for a run in `workspace` (`approve_all`: --yes, which approves a
    project's hooks as it approves its .mcp.json)."""
    hooks = HookSet(configured)
    user = user_settings_hooks(os.environ if environ is None else environ)
    sources = [user] if user is not None else []
    taken = {found.key for found in sources}  # the workspace may be the home: its file once
    for found in project_settings_hooks(workspace):
        if found.key not in taken:  # the user's disableAllHooks: their other settings stay
            sources.append(found if user is None or not user.disables else replace(found, specs=()))
    waiting: list[SettingsHooks] = []
    for found in sources:
        hooks.notes.extend(found.problems)
        if not found.specs and not found.others:
            continue
        if found is user or not found.digest or is_approved(found):
            hooks.add(found.specs)
        elif approve_all and not written_by_a_run(found.key):
            hooks.add(found.specs)
            hooks.notes.append(approved_line(found))
        else:
            if approve_all:  # planted by a command of an earlier run: a person must see it
                hooks.notes.append(WRITTEN_BY_A_RUN.format(label=found.label))
            waiting.append(found)
    return RunHooks(hooks, tuple(waiting))


def approved_line(found: SettingsHooks) -> str:
    """Headless with --yes: the project's hooks and settings that take effect without a
    question, named."""
    names = "; ".join([*(f"{spec.event}: {spec.command}" for spec in found.specs), *found.others])
    return f"{found.label} takes effect (approved by --yes): {one_line(names)}"


def waiting_line(waiting: SettingsHooks) -> str:
    """Headless: why a project's hooks and settings do not take effect, and how to let them."""
    count = len(waiting.specs)
    what = [f"{count} hook{'s' if count != 1 else ''}"] if count else []
    if waiting.others:
        keys = sorted({".".join(line.split(":", 1)[0].split(".")[:2]) for line in waiting.others})
        keys = sorted({"env" if key.startswith("env.") else key for key in keys})
        what.append(f"settings not approved ({', '.join(keys)})")
    else:
        what[-1] += " not approved"
    return (
        f"{waiting.label} in this workspace has {' and '.join(what)}, so they do not take "
        "effect: approve the file in pleat's terminal UI (it asks at start), or pass --yes"
    )
