"""Reading a plugin's or a marketplace's files as hostile input: paths kept inside the plugin's
(or marketplace's) directory, JSON read bounded, every failure one line.

A plugin comes from someone else's repository, so a path in its manifest may try `..`, an
absolute path or a symlink out of it, and a JSON file may be huge, deep or not JSON at all.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from sessions.model_json import ModelJsonError, loads
from sessions.short_text import quoted
from tools.workspace_text import read_workspace_text

# A plugin's or a marketplace's name: it names a directory under $PLEAT_HOME and is typed in
# `/plugin:command`, so letters, digits, "-", "_" and "." (not first), at most 64 (Claude Code
# asks for kebab-case; hand-made names with "_" or "." are taken too).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Bytes of a manifest, a marketplace file, a hooks.json or a .mcp.json: real ones are a few KiB
# (Anthropic's own marketplace of a dozen plugins is 6 KiB); past 1 MiB it is not a manifest.
MAX_JSON_BYTES = 1024 * 1024


class PluginError(Exception):
    """A plugin, a marketplace or a state file that cannot be used: one line saying why."""


def check_name(value: Any, what: str) -> str:
    """`value` as a plugin's or marketplace's name; PluginError when it cannot be one."""
    if not isinstance(value, str) or NAME.fullmatch(value) is None:
        raise PluginError(
            f"{what} {quoted(value, 64)} is not a name (letters, digits, '-', '_', '.'; at most "
            "64 characters)"
        )
    return value


def inside(root: Path, raw: Any, what: str) -> Path:
    """The path `raw` (relative, as Claude Code writes it: `./commands`) names inside `root`,
    symlinks followed; PluginError for an absolute path or one leading out of `root`."""
    if not isinstance(raw, str) or not raw.strip() or "\x00" in raw:
        raise PluginError(f"{what} must be a relative path like ./dir, got {quoted(raw, 80)}")
    if raw.startswith(("/", "~")):
        raise PluginError(f"{what} {quoted(raw, 80)} is not relative to the plugin; not used")
    real_root = Path(os.path.realpath(root))
    path = Path(os.path.realpath(root / raw))
    if not path.is_relative_to(real_root):
        raise PluginError(f"{what} {quoted(raw, 80)} leads outside its directory; not used")
    return path


def read_json(root: Path, path: Path, label: str) -> Any:
    """The JSON in `path` (inside `root`), bounded; None when the file does not exist;
    PluginError (one line) when it cannot be read or parsed."""
    found = read_workspace_text(root, path, MAX_JSON_BYTES)
    if found.skipped is not None:
        raise PluginError(f"{label}: {found.skipped}")
    if found.text is None:
        return None
    if found.cut:
        raise PluginError(f"{label} is over {MAX_JSON_BYTES // 1024} KiB; not used")
    try:
        return loads(found.text)
    except ModelJsonError as error:
        raise PluginError(f"{label} is not valid JSON ({error}); not used") from None
