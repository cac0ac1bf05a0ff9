"""Which files glob and grep may see: not in .git, not gitignored, not linking outside."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

from tools.base import ToolError
from tools.gitignore import IgnoreRule, is_ignored, parse_gitignore
from tools.paths import open_in_workspace

# Seconds allowed for one git call: listing even a huge repository takes well under a second;
# past this, git is hung (a lock, a network filesystem) and the plain walk is used instead.
GIT_TIMEOUT_SECONDS = 30.0
# Never walk into these directories: git's own data is no workspace content.
ALWAYS_SKIPPED_DIRS = frozenset({".git"})
# Settings forced on every git call. `core.fsmonitor` names a command git runs while listing
# files: a .git/config written by the model (or shipped in a downloaded directory) would
# otherwise run anything through glob and grep, which need no approval.
GIT_SAFETY_CONFIG = ("-c", "core.fsmonitor=false")


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes] | None:
    """Run git without a terminal and without taking index locks; None when it cannot run."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        return subprocess.run(
            ["git", *GIT_SAFETY_CONFIG, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _git_listing(root: Path, start: Path) -> list[str] | None:
    """Tracked plus untracked-but-not-ignored files below `start`, from git; None without git.

    An explicitly named directory that git ignores (say `.venv/lib/foo`) gets None too, so
    the walk lists it: the model asked for it by name, as with ripgrep.
    """
    if start != root:
        check = _git(["check-ignore", "-q", "--", start.name], start.parent)
        if check is None or check.returncode == 0:
            return None
    listing = _git(["ls-files", "--cached", "--others", "--exclude-standard", "-z"], start)
    if listing is None or listing.returncode != 0:
        return None
    prefix = start.relative_to(root).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    names = {os.fsdecode(raw) for raw in listing.stdout.split(b"\x00") if raw}
    return [prefix + name for name in names]


def _load_rules(directory: Path, rel: str) -> list[IgnoreRule]:
    """The rules of `directory`/.gitignore, if there is a readable one."""
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return parse_gitignore(text, rel)


def _list_directory(root: Path, directory: Path) -> list[tuple[str, bool]]:
    """(name, is a directory) for the entries of a directory the walk reached, leaving out
    anything but directories, files and symlinks. The directory is opened without following a
    symlink swapped in since it was listed, and only if it still lies inside the workspace."""
    fd = open_in_workspace(root, directory, os.O_RDONLY | os.O_DIRECTORY, str(directory))
    try:
        scan = os.scandir(fd)  # on its own duplicate of the descriptor
    finally:
        os.close(fd)
    entries: list[tuple[str, bool]] = []
    with scan:
        for entry in scan:  # classified now: DirEntry stats lazily, through the open scan
            try:
                if entry.is_dir(follow_symlinks=False):
                    entries.append((entry.name, True))
                elif entry.is_file() or entry.is_symlink():
                    entries.append((entry.name, False))
            except OSError:
                continue
    return entries


def _walk(root: Path, start: Path, stop: threading.Event | None) -> list[str]:
    """Walk `start` applying every .gitignore from the root down; symlinked dirs not followed."""
    start_rel = start.relative_to(root).as_posix()
    start_rel = "" if start_rel == "." else start_rel
    rules: list[IgnoreRule] = []
    directory, rel = root, ""
    for part in start.relative_to(root).parts:  # the ancestors' rules also apply below start
        rules = rules + _load_rules(directory, rel)
        directory, rel = directory / part, f"{rel}/{part}" if rel else part
    found: list[str] = []
    pending: list[tuple[Path, str, list[IgnoreRule]]] = [(start, start_rel, rules)]
    while pending:
        if stop is not None and stop.is_set():
            break
        directory, rel, inherited = pending.pop()
        here = inherited + _load_rules(directory, rel)
        try:
            entries = _list_directory(root, directory)
        except (OSError, ToolError):
            continue
        for name, is_dir in entries:
            child = f"{rel}/{name}" if rel else name
            if is_dir:
                if name not in ALWAYS_SKIPPED_DIRS and not is_ignored(here, child, True):
                    pending.append((directory / name, child, here))
            elif not is_ignored(here, child, False):
                found.append(child)
    return found


def _inside(root: Path, rel: str) -> bool:
    """A regular file whose real location (symlinks followed) is inside the workspace."""
    path = root / rel
    if not path.is_symlink():
        return path.is_file()
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return target.is_relative_to(root) and target.is_file()


def visible_files(
    root: Path, start: Path, *, use_git: bool = True, stop: threading.Event | None = None
) -> list[str]:
    """Sorted workspace-relative posix paths of the files under `start` a search may read.

    `root` and `start` must be resolved, `start` inside `root`. A file given as `start` is
    always visible. Below a directory: with git, what `git ls-files` lists (tracked, plus
    untracked files not ignored); without git, a walk honouring .gitignore files. `.git` is
    always skipped, and so is a symlink leading out of the workspace. Blocking: call it in a
    worker thread; setting `stop` ends the walk early.
    """
    if start.is_file():
        rel = start.relative_to(root).as_posix()
        return [rel] if _inside(root, rel) else []
    names = _git_listing(root, start) if use_git else None
    if names is None:
        names = _walk(root, start, stop)
    return sorted(name for name in names if _inside(root, name))
