"""Directories outside the workspace the user added (`--add-dir`, `/add-dir`, `add_dirs`, Claude
Code's `permissions.additionalDirectories`): checked, resolved, each refusal one line."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from sessions.paths import APP_NAME, data_home
from sessions.short_text import quoted


def _pleat_config_dir() -> Path:
    """Where config.toml lives (as agent/config.py config_path finds it: $PLEAT_HOME, else the
    platform's user config directory)."""
    value = os.environ.get("PLEAT_HOME")
    if value:
        return Path(value).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def _guarded() -> tuple[Path, ...]:
    """Directories whose files start processes that run outside the sandbox (hooks, MCP
    servers, status lines, plugins: pleat's config.toml, Claude Code's user settings) or hold
    every session's transcript: adding one, or one holding it, would let a confined command
    write what pleat later runs unconfined, so none is ever added."""
    guarded = [_pleat_config_dir(), data_home(), Path.home() / ".claude"]
    if claude := os.environ.get("CLAUDE_CONFIG_DIR"):  # where Claude Code's own settings are
        guarded.append(Path(claude).expanduser())
    return tuple(path.resolve(strict=False) for path in guarded)


def _refusal(directory: Path) -> str | None:
    """Why `directory` (resolved, an existing directory) is not added, or None."""
    home = Path.home().resolve(strict=False)
    # `/` or the home (or a directory holding it) would open everything: ~/.ssh, the shell's
    # startup files, every other project; the model would read and write all of it, and so
    # would its sandboxed commands. Claude Code takes them; pleat names a narrower directory.
    if directory == Path(directory.anchor) or directory == home or directory in home.parents:
        return f"{directory} holds your whole home directory; add the directory you need instead"
    for guarded in _guarded():
        if guarded == directory or directory in guarded.parents or guarded in directory.parents:
            return (
                f"{directory} holds or lies in {guarded}, whose files run outside the sandbox "
                "(hooks, servers) or keep your sessions"
            )
    return None  # a directory holding the workspace is fine: paths in it are the workspace's


def checked_dirs(raw: Iterable[str], workspace: Path) -> tuple[tuple[Path, ...], tuple[str, ...]]:
    """The directories of `raw` to add, resolved and without repeats, and one line per entry
    left out (not found, not a directory, too wide). `~` is expanded; a relative entry is taken
    from the workspace; the workspace itself, or a directory inside it, needs no adding and is
    left out silently. Nothing is lost: a bad entry is named, the others are added."""
    root = workspace.resolve(strict=False)
    added: list[Path] = []
    problems: list[str] = []
    for entry in raw:
        text = entry.strip()
        if not text or "\x00" in text:
            problems.append(f"added directory {quoted(entry)}: not a path; not added")
            continue
        try:
            directory = (root / Path(text).expanduser()).resolve(strict=False)
            found, is_dir = directory.exists(), directory.is_dir()
        except (OSError, RuntimeError) as error:  # RuntimeError: ~user unknown, or a link loop
            said = error.strerror if isinstance(error, OSError) and error.strerror else error
            problems.append(f"added directory {quoted(text)}: {said}; not added")
            continue
        if not found or not is_dir:
            what = "not a directory" if found else "not found"
            problems.append(f"added directory {quoted(text)}: {what}; not added")
            continue
        if directory == root or directory.is_relative_to(root) or directory in added:
            continue  # inside the workspace already, or given twice
        if (why := _refusal(directory)) is not None:
            problems.append(f"added directory {quoted(text)}: {why}; not added")
            continue
        added.append(directory)
    return tuple(added), tuple(problems)
