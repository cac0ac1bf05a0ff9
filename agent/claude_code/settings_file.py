"""One Claude Code settings file, read as hostile input: where Claude Code keeps it, bounded, parsed
with limits, never through a link out of the workspace for a project's; and which of its parts
need the user's approval before they take effect.

Claude Code layers its settings files: the user's `~/.claude/settings.json`
(`$CLAUDE_CONFIG_DIR/settings.json` when that is set), then the project's `.claude/settings.json`,
then `.claude/settings.local.json`, then the command line. The user's file is the user's own.
A project's comes with the repository, and a sandboxed command can write it too: what in it
tightens (deny and ask rules) holds at once; everything else (hooks, a status line command,
`env`, allow rules, the default mode, extra directories, the model ...) would run or shape a
process outside the sandbox, so it takes effect only once the user approved that exact content
(`approval_digest`), and any change to it asks again.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sessions.approvals import digest
from sessions.model_json import ModelJsonError, loads
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

# A project's settings files, relative to the workspace root, in the order Claude Code layers them.
PROJECT_FILES = (".claude/settings.json", ".claude/settings.local.json")
# Bytes of a settings file read at most: a file of a few dozen hooks and rules is a few KiB;
# past 1 MiB it is not a settings file, and it is not used.
MAX_SETTINGS_BYTES = 1024 * 1024
# The root of the file system: the user's own settings file is read wherever it links to.
ANYWHERE = Path("/")
# The parts of a project's file that only tighten: they hold without an approval, and a change
# to them asks nothing ($schema names the file's format and does nothing).
TIGHTENING_PERMISSIONS = ("deny", "ask")
INERT_KEYS = ("$schema",)

Scope = Literal["user", "project", "local"]
# `$CLAUDE_PROJECT_DIR` as a hook's command names the project (quoted or braced alike).
PROJECT_DIR = re.compile(r"\$\{?CLAUDE_PROJECT_DIR\}?")
# A word of a command that may name a file: what lies between spaces and shell operators.
WORD = re.compile(r"[^\s`;|&()<>]+")
# Words looked at per command, scripts hashed per file, and bytes of a script read: a hooks block
# names a handful of scripts of a few KiB; past these a file is not a settings file anyone wrote.
MAX_WORDS = 200
MAX_SCRIPTS = 50
MAX_SCRIPT_BYTES = 1024 * 1024
# Suffixes of the scripts hooks run (an executable file counts whatever its name).
SCRIPT_SUFFIXES = frozenset(
    {".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua"}
)


@dataclass(frozen=True)
class SettingsFile:
    """One settings file: how lines name it, the key its approval is kept by, its scope, its
    content (an object; {} when missing or unusable), and one line for each part not used."""

    label: str
    key: str
    scope: Scope
    data: Mapping[str, Any] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    @property
    def approvable(self) -> dict[str, Any]:
        """What of the file waits for an approval (a project's): all but its tightening rules."""
        kept = {k: v for k, v in self.data.items() if k not in INERT_KEYS}
        permissions = kept.get("permissions")
        if isinstance(permissions, dict):
            loose = {k: v for k, v in permissions.items() if k not in TIGHTENING_PERMISSIONS}
            if loose:
                kept["permissions"] = loose
            else:
                del kept["permissions"]
        return kept

    @property
    def approval_digest(self) -> str:
        """The SHA-256 an approval of this file is kept with ("" when nothing waits for one):
        of what waits in it and of each workspace file its commands name (a hook's script, which
        a sandboxed command could rewrite after the approval: found by review)."""
        approvable = self.approvable
        if not approvable:
            return ""
        scripts = (
            named_scripts(approvable, Path(self.key).parent.parent) if self.scope != "user" else {}
        )
        return digest(json.dumps([approvable, scripts], sort_keys=True))


def _commands(value: Any) -> list[str]:
    """Every `command` string in a settings value (hooks, statusLine), at any depth."""
    if isinstance(value, dict):
        found = [value["command"]] if isinstance(value.get("command"), str) else []
        return found + [c for k, v in value.items() if k != "command" for c in _commands(v)]
    if isinstance(value, list):
        return [c for item in value for c in _commands(item)]
    return []


def named_scripts(approvable: Mapping[str, Any], root: Path) -> dict[str, str]:
    """The workspace files the commands of `approvable` name (relative, `./`, or under
    `$CLAUDE_PROJECT_DIR`), each with the SHA-256 of its content ("missing" when it is not a
    file there): part of what an approval covers."""
    scripts: dict[str, str] = {}
    for command in _commands(approvable):
        # Quotes joined away: `"$CLAUDE_PROJECT_DIR"/hooks/x.sh` is one path.
        text = PROJECT_DIR.sub(lambda _: str(root), command).replace('"', "").replace("'", "")
        for match in list(WORD.finditer(text))[:MAX_WORDS]:
            word = match.group()
            written = text[: match.start()].rstrip().endswith(">")  # `>> log`: what it writes
            if "/" not in word or written or len(scripts) >= MAX_SCRIPTS:
                continue
            path = Path(word) if word.startswith("/") else root / word
            if not Path(os.path.realpath(path)).is_relative_to(root) or not _runs(path):
                continue
            scripts[word] = file_digest(path) or "missing"
    return scripts


def _runs(path: Path) -> bool:
    """Whether a named file is code that runs (a script by its suffix, or executable), not data
    the command writes or reads (a log that changes at every run would ask again each time)."""
    if path.suffix.lower() in SCRIPT_SUFFIXES:
        return True
    try:
        return path.is_file() and os.access(path, os.X_OK)
    except OSError:
        return False


def file_digest(path: Path, max_bytes: int = MAX_SCRIPT_BYTES) -> str:
    """The SHA-256 of a regular file's bytes (at most `max_bytes`; a binary's change shows too),
    or "" when it is none (never blocks on a FIFO). hashlib (it loads OpenSSL) is imported only
    for a file to hash: a start without such files does not wait for it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        import hashlib

        with os.fdopen(os.dup(fd), "rb") as file:
            return hashlib.sha256(file.read(max_bytes)).hexdigest()
    except OSError:
        return ""
    finally:
        os.close(fd)


def user_settings_path(environ: Mapping[str, str]) -> Path:
    """The user's Claude Code settings file."""
    return claude_dir(environ) / "settings.json"


def claude_dir(environ: Mapping[str, str]) -> Path:
    """The user's Claude Code directory: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def home_label(path: Path) -> str:
    """A path as lines show it: the home as `~`."""
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if home != "/" and text.startswith(home + "/") else text


def read_settings(path: Path, label: str, scope: Scope, root: Path = ANYWHERE) -> SettingsFile:
    """One file (empty data when there is none). Never raises."""
    found = read_workspace_text(root, path, MAX_SETTINGS_BYTES)
    key = str(path)
    if found.skipped is not None:
        return SettingsFile(label, key, scope, problems=(f"{label}: {found.skipped}",))
    if found.text is None:
        return SettingsFile(label, key, scope)
    if found.cut:
        too_big = f"{label} is over {MAX_SETTINGS_BYTES // 1024} KiB; not used"
        return SettingsFile(label, key, scope, problems=(too_big,))
    try:
        data = loads(found.text)
    except ModelJsonError as error:
        bad = f"{label} is not valid JSON ({error}); not used"
        return SettingsFile(label, key, scope, problems=(bad,))
    if not isinstance(data, dict):
        return SettingsFile(
            label, key, scope, problems=(f"{label} is not a JSON object; not used",)
        )
    return SettingsFile(label, key, scope, data)


def user_settings(environ: Mapping[str, str]) -> SettingsFile:
    """The user's own settings file."""
    path = user_settings_path(environ)
    return read_settings(path, home_label(path), "user")


def project_settings(workspace: Path) -> list[SettingsFile]:
    """The workspace's two settings files, in Claude Code's order (missing ones empty)."""
    root = workspace_root(workspace)
    scopes: tuple[Scope, Scope] = ("project", "local")
    return [
        read_settings(root / name, name, scope, root)
        for name, scope in zip(PROJECT_FILES, scopes, strict=True)
    ]
