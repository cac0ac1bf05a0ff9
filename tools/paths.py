"""Confine every path a tool touches to the workspace root, symlinks included."""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from sessions.short_text import quoted
from tools.errors import ToolError

# Added to every confined open: never follow a symlink in the last component (one swapped in
# after the check), and never leak the descriptor into a command started meanwhile.
NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
# How a directory is opened while walking down from the workspace root.
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW
# Bytes of a file name a file system takes (NAME_MAX on Linux and macOS); a longer component
# could never exist, and asking the system about it raises instead of answering "no".
NAME_MAX_BYTES = 255
# Bytes of a whole path the system takes (PATH_MAX on Linux); a longer one could never be
# opened, and resolving a hostile megabyte of `a/a/a/...` one component at a time takes minutes.
PATH_MAX_BYTES = 4096


def workspace_root(workspace: Path) -> Path:
    """The workspace itself, fully resolved (it may sit behind a symlink, e.g. /tmp on macOS)."""
    return workspace.resolve(strict=False)


def root_of(workspace: Path, path: Path, extra_roots: Sequence[Path] = ()) -> Path | None:
    """The root the resolved `path` lies in: the workspace (first: it wins when an added
    directory holds it), else the deepest of `extra_roots` (directories the user added,
    agent/added_dirs.py) holding it; None when it lies in none. Every confinement check of a
    path (the descriptor, the walk down from the root) runs against this root."""
    root = workspace_root(workspace)
    if path == root or path.is_relative_to(root):
        return root
    holding = [r for r in map(workspace_root, extra_roots) if path == r or path.is_relative_to(r)]
    return max(holding, key=lambda r: len(r.parts)) if holding else None


def _outside(raw: str, root: Path, extra_roots: Sequence[Path]) -> ToolError:
    """The refusal of a path in no root, naming the roots (the added directories too)."""
    if not extra_roots:
        return ToolError(f"path {quoted(raw)} is outside the workspace ({root}); access refused")
    added = ", ".join(str(workspace_root(r)) for r in extra_roots)
    return ToolError(
        f"path {quoted(raw)} is outside the workspace ({root}) and the added directories "
        f"({added}); access refused"
    )


def resolve_in_workspace(workspace: Path, raw: str, extra_roots: Sequence[Path] = ()) -> Path:
    """Resolve `raw` (relative to the workspace, or absolute) and refuse anything outside it
    and outside every one of `extra_roots` (the directories the user added, whose paths the
    tools take like the workspace's: root_of says which root a path lies in).

    The check runs on the fully resolved path, so `..` segments, absolute paths elsewhere and
    symlinks (on the file or on any parent directory) that lead out are all refused alike.
    """
    if not raw or not raw.strip():
        raise ToolError("empty path; give a path relative to the workspace")
    if "\x00" in raw:
        raise ToolError(f"invalid path {quoted(raw)}: it contains a NUL byte")
    if len(raw) > PATH_MAX_BYTES or len(os.fsencode(raw)) > PATH_MAX_BYTES:
        raise ToolError(
            f"path {quoted(raw)} is longer than {PATH_MAX_BYTES} bytes, which no file system "
            "here allows"
        )
    if any(len(os.fsencode(part)) > NAME_MAX_BYTES for part in Path(raw).parts):
        raise ToolError(
            f"a name in path {quoted(raw)} is longer than {NAME_MAX_BYTES} bytes, "
            "which no file system here allows"
        )
    root = workspace_root(workspace)
    candidate = Path(raw)
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        resolved = candidate.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on Python 3.11/3.12
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ToolError(f"cannot resolve path {quoted(raw)}: {why}") from exc
    if root_of(root, resolved, extra_roots) is None:
        raise _outside(raw, root, extra_roots)
    return resolved


def resolve_in_roots(
    workspace: Path, raw: str, extra_roots: Sequence[Path] = ()
) -> tuple[Path, Path]:
    """resolve_in_workspace's path and the root it lies in (root_of), which the opens and
    writes of that path are then confined to. Raises ToolError like resolve_in_workspace."""
    path = resolve_in_workspace(workspace, raw, extra_roots)
    root = root_of(workspace, path, extra_roots)
    if root is None:  # resolve_in_workspace refused it already; said again for the checker
        raise _outside(raw, workspace_root(workspace), extra_roots)
    return path, root


def display_path(workspace: Path, path: Path) -> str:
    """The workspace-relative posix form of `path` for messages ("." for the root itself);
    a path outside the workspace (in an added directory) is shown whole, absolute."""
    root = workspace_root(workspace)
    try:
        relative = path.relative_to(root)
    except ValueError:
        try:
            relative = path.resolve(strict=False).relative_to(root)
        except (ValueError, OSError, RuntimeError):
            return str(path)
    return relative.as_posix() or "."


def descriptor_path(fd: int) -> Path | None:
    """Where an open descriptor really is (Linux: /proc/self/fd; macOS: F_GETPATH); None when
    the platform cannot say (the O_NOFOLLOW opens and directory walks still hold)."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:
        pass
    if sys.platform == "darwin":  # pragma: no cover - exercised on macOS only
        import fcntl

        try:
            raw = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))
        except OSError:
            return None
        return Path(os.fsdecode(raw.split(b"\0", 1)[0]))
    return None


def check_descriptor(workspace: Path, fd: int, raw: str) -> None:
    """Refuse a descriptor that does not live inside the workspace: a path component was
    swapped for a symlink leading out between the check and the open."""
    root = workspace_root(workspace)
    real = descriptor_path(fd)
    # A file deleted since it was opened shows as "<path> (deleted)": still inside.
    if real is not None and real != root and not real.is_relative_to(root):
        raise ToolError(
            f"path {quoted(raw)} led outside the workspace when it was opened (a symlink was "
            "swapped in after the check); access refused"
        )


def _swapped(raw: str) -> ToolError:
    return ToolError(
        f"path {quoted(raw)} changed into a symbolic link after it was checked; access refused"
    )


def open_in_workspace(
    workspace: Path, path: Path, flags: int, raw: str, *, follow_symlinks: bool = False
) -> int:
    """Open `path` (as resolve_in_workspace returned it) without following a symlink in its
    last component, and make sure the descriptor is inside the workspace. Raises ToolError
    for a swap, OSError for the rest (not found, permission ...), for the caller to word.
    With `follow_symlinks` (grep reading a listed link that pointed inside), a link is
    followed and only the descriptor check guards where it led."""
    try:
        fd = os.open(path, flags | (os.O_CLOEXEC if follow_symlinks else NOFOLLOW))
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and path.is_symlink()):
            raise _swapped(raw) from exc
        raise
    try:
        check_descriptor(workspace, fd, raw)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _child_directory(parent: int, name: str, raw: str, create: bool) -> int:
    """Open the directory `name` inside the directory `parent` (never through a symlink),
    creating it first when asked and missing."""
    try:
        return os.open(name, DIRECTORY_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    except NotADirectoryError:
        if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
            raise _swapped(raw) from None
        raise
    try:
        os.mkdir(name, 0o777, dir_fd=parent)
    except FileExistsError:
        pass  # made meanwhile: opened (and checked) below like any other
    return _child_directory(parent, name, raw, create=False)


def open_directory_in_workspace(workspace: Path, directory: Path, raw: str, *, create: bool) -> int:
    """A descriptor of `directory` (resolved, inside the workspace), reached from the root one
    component at a time with O_NOFOLLOW, so no symlink swapped in anywhere below the root can
    redirect it; missing directories are created when `create`. Raises ToolError or OSError."""
    root = workspace_root(workspace)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in directory.relative_to(root).parts:
            child = _child_directory(fd, part, raw, create)
            os.close(fd)
            fd = child
        check_descriptor(workspace, fd, raw)
    except BaseException:
        os.close(fd)
        raise
    return fd
