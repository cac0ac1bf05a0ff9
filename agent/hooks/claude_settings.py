"""Claude Code's settings files as a source of hooks, where Claude Code users keep them.

The user's `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json` when that is set, as
Claude Code reads it) is the user's own: its hooks run as config.toml's do. A project's
`.claude/settings.json` and `.claude/settings.local.json` come with the repository, so anyone
who can commit to it could make pleat run a command: their hooks run only once the user has
approved them for this workspace (the TUI asks at start; headless, --yes approves), as a
project's .mcp.json is (agent/mcp/project_file.py). The approval is kept by file with the
SHA-256 of its `hooks` block, so a changed hook is asked about again while the file's other
settings may change freely.

Every file is read as hostile input: never past MAX_SETTINGS_BYTES, a project's never through a
link out of the workspace, parsed with the limits of sessions/model_json.py, and its hooks block
read leniently (agent/hooks/config.py: what pleat cannot run is left out with one line).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.hooks.answer import one_line
from agent.hooks.config import HookSpec, parse_claude_hooks
from agent.hooks.runner import HookSet
from sessions.approvals import Approvals, digest
from sessions.model_json import ModelJsonError, loads
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

# A project's settings files, relative to the workspace root, in the order Claude Code layers them.
PROJECT_FILES = (".claude/settings.json", ".claude/settings.local.json")
# Bytes of a settings file read at most: a file of a few dozen hooks and rules is a few KiB;
# past 1 MiB it is not a settings file, and it is not used.
MAX_SETTINGS_BYTES = 1024 * 1024
# Where approvals of a project's hooks are kept, under $PLEAT_HOME: file -> digest of its hooks.
HOOK_APPROVALS = Approvals("hook-approvals.json")
# The root of the file system: the user's own settings file is read wherever it links to.
ANYWHERE = Path("/")


@dataclass(frozen=True)
class SettingsHooks:
    """The hooks of one settings file: how lines name the file, the key its approval is kept
    by, the hooks, the digest of its hooks block, and one line for each part not used."""

    label: str
    key: str
    specs: tuple[HookSpec, ...]
    digest: str
    problems: tuple[str, ...] = ()
    # Claude Code's `disableAllHooks: true`: the file runs none (the user's own file: no file
    # of Claude Code's does; a project's cannot turn off the user's hooks).
    disables: bool = False


def user_settings_path(environ: Mapping[str, str]) -> Path:
    """The user's Claude Code settings file."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    base = Path(configured).expanduser() if configured else Path.home() / ".claude"
    return base / "settings.json"


def _read(path: Path, label: str, root: Path) -> SettingsHooks | None:
    """The hooks of one file (None: no file, or no hooks block). Never raises."""
    found = read_workspace_text(root, path, MAX_SETTINGS_BYTES)
    key = str(path)
    if found.skipped is not None:
        return SettingsHooks(label, key, (), "", (f"{label}: {found.skipped}",))
    if found.text is None:
        return None
    if found.cut:
        too_big = f"{label} is over {MAX_SETTINGS_BYTES // 1024} KiB; its hooks are not used"
        return SettingsHooks(label, key, (), "", (too_big,))
    try:
        data = loads(found.text)
    except ModelJsonError as error:
        bad = f"{label} is not valid JSON ({error}); its hooks are not used"
        return SettingsHooks(label, key, (), "", (bad,))
    if not isinstance(data, dict):
        return None
    if data.get("disableAllHooks") is True:
        whose = (
            "no Claude Code settings file's hooks are" if root == ANYWHERE else "its hooks are not"
        )
        off = f"{label} sets disableAllHooks: {whose} used"
        return SettingsHooks(label, key, (), "", (off,), disables=True)
    if "hooks" not in data:
        return None
    block = data["hooks"]
    specs, problems = parse_claude_hooks(block, label)
    return SettingsHooks(label, key, specs, digest(json.dumps(block, sort_keys=True)), problems)


def user_settings_hooks(environ: Mapping[str, str]) -> SettingsHooks | None:
    """The hooks of the user's own Claude Code settings file."""
    path = user_settings_path(environ)
    home = str(Path.home())
    label = str(path).replace(home, "~", 1) if str(path).startswith(home) else str(path)
    return _read(path, label, ANYWHERE)


def project_settings_hooks(workspace: Path) -> list[SettingsHooks]:
    """The hooks of the workspace's Claude Code settings files (those that have any)."""
    root = workspace_root(workspace)
    found = [_read(root / name, name, root) for name in PROJECT_FILES]
    return [hooks for hooks in found if hooks is not None]


def is_approved(hooks: SettingsHooks) -> bool:
    return HOOK_APPROVALS.approved(hooks.key, hooks.digest)


def approve(hooks: SettingsHooks) -> None:
    """Remember the approval of this file's hooks. Raises OSError when it cannot be written."""
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
    if user is None or not user.disables:  # the workspace may be the home: its file once
        taken = {found.key for found in sources}
        sources += [f for f in project_settings_hooks(workspace) if f.key not in taken]
    waiting: list[SettingsHooks] = []
    for found in sources:
        hooks.notes.extend(found.problems)
        if not found.specs:
            continue
        if found is user or is_approved(found):
            hooks.add(found.specs)
        elif approve_all:
            hooks.add(found.specs)
            hooks.notes.append(approved_line(found))
        else:
            waiting.append(found)
    return RunHooks(hooks, tuple(waiting))


def approved_line(found: SettingsHooks) -> str:
    """Headless with --yes: the project's hooks that run without a question, named."""
    names = "; ".join(f"{spec.event}: {spec.command}" for spec in found.specs)
    return f"{found.label}'s hooks run (approved by --yes): {one_line(names)}"


def waiting_line(waiting: SettingsHooks) -> str:
    """Headless: why a project's hooks do not run, and how to let them."""
    count = len(waiting.specs)
    return (
        f"{waiting.label} in this workspace has {count} hook{'s' if count != 1 else ''} not "
        "approved, so they do not run: approve the file in pleat's terminal UI (it asks at "
        "start), or pass --yes"
    )
