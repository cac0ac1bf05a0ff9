"""Which files glob and grep may see: not in .git, not gitignored, not linking outside."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

from tools.base import ToolError
from tools.git_process import run_git
from tools.gitignore import IgnoreRule, is_ignored, parse_gitignore
from tools.paths import open_in_workspace
from tools.workspace_text import read_workspace_text

# Seconds allowed for one git call: listing even a huge repository takes well under a second;
# past this, git is hung (a lock, a network filesystem, a .gitignore that is a named pipe, which
# git opens and waits on) and the plain walk is used instead, from then on for that workspace.
GIT_TIMEOUT_SECONDS = 10.0
# Bytes of one .gitignore read: real ones are a few kilobytes; the cap bounds the rules (each
# one checked against every path of the walk) a hostile file can add.
MAX_GITIGNORE_BYTES = 256 * 1024
# Never walk into these directories: git's own data is no workspace content.
ALWAYS_SKIPPED_DIRS = frozenset({".git"})


# Workspaces where git hung once: their listings use the walk, so a named pipe that git waits
# on costs one timeout per session, not one per search.
_GIT_HUNG: set[Path] = set()


def _git(
    args: list[str], cwd: Path, stop: threading.Event | None = None
) -> subprocess.CompletedProcess[bytes] | None:
    """Run git (tools/git_process.py); None when it cannot run, hangs past
    GIT_TIMEOUT_SECONDS, or `stop` is set meanwhile (git is then killed)."""
    return run_git(args, cwd, timeout=GIT_TIMEOUT_SECONDS, stop=stop)


def _git_listing(root: Path, start: Path, stop: threading.Event | None) -> list[str] | None:
    """Tracked plus untracked-but-not-ignored files below `start`, from git; None without git.

    An explicitly named directory that git ignores (say `.venv/lib/foo`) gets None too, so
    the walk lists it: the model asked for it by name, as with ripgrep.
    """
    if root in _GIT_HUNG:
        return None
    if start != root:
        check = _git(["check-ignore", "-q", "--", start.name], start.parent, stop)
        if check is None or check.returncode == 0:
            _GIT_HUNG.update([root] if check is None and not _stopped(stop) else [])
            return None
    listing = _git(["ls-files", "--cached", "--others", "--exclude-standard", "-z"], start, stop)
    if listing is None and not _stopped(stop):
        _GIT_HUNG.add(root)
    if listing is None or listing.returncode != 0:
        return None
    prefix = start.relative_to(root).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    names = {os.fsdecode(raw) for raw in listing.stdout.split(b"\x00") if raw}
    return [prefix + name for name in names]


def _stopped(stop: threading.Event | None) -> bool:
    return stop is not None and stop.is_set()


def _load_rules(root: Path, directory: Path, rel: str) -> list[IgnoreRule]:
    """The rules of `directory`/.gitignore, if it is a regular file inside the workspace (a
    named pipe or a device would block or never end: tools/workspace_text.py)."""
    found = read_workspace_text(root, directory / ".gitignore", MAX_GITIGNORE_BYTES)
    return parse_gitignore(found.text, rel) if found.text is not None else []


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
        rules = rules + _load_rules(root, directory, rel)
        directory, rel = directory / part, f"{rel}/{part}" if rel else part
    found: list[str] = []
    pending: list[tuple[Path, str, list[IgnoreRule]]] = [(start, start_rel, rules)]
    while pending:
        if stop is not None and stop.is_set():
            break
        directory, rel, inherited = pending.pop()
        here = inherited + _load_rules(root, directory, rel)
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
    """A plain relative name (no `..`, no absolute path: git lists what its index holds, and a
    crafted index can hold anything) of a regular file whose real location, symlinks
    followed, is inside the workspace."""
    parts = rel.split("/")
    if rel.startswith("/") or any(part in ("", ".", "..") for part in parts) or "\x00" in rel:
        return False
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
    names = _git_listing(root, start, stop) if use_git else None
    if names is None:
        names = _walk(root, start, stop)
    return sorted(name for name in names if _inside(root, name))
