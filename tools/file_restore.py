"""Reading a workspace file's current state and putting an old one back, confined (undo)."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tools.base import ToolError
from tools.file_changes import atomic_write
from tools.paths import NOFOLLOW, open_directory_in_workspace, workspace_root

# Git's mode for a symbolic link, an executable file and a plain one (sessions/lineage.py
# FILE_MODES).
LINK_MODE, EXECUTABLE_MODE, REGULAR_MODE = "120000", "100755", "100644"
# The execute bits (owner, group, others) a plain file loses when its old mode comes back.
EXECUTE_BITS = 0o111
# Largest file read to compare with what pleat wrote: far past what the file tools write
# (10 MiB), while a command's output file of gigabytes is simply taken as changed.
MAX_COMPARE_BYTES = 256 * 1024 * 1024

Kind = Literal["file", "link", "missing", "dir", "other"]


@dataclass(frozen=True)
class Current:
    """What is at a path now: a file (its bytes), a link (its target), nothing, a directory,
    or something else (a device, a file too big to compare)."""

    kind: Kind
    data: bytes = b""
    executable: bool = False  # a file its owner may execute (git's 100755)


def in_root(workspace: Path, rel: str, extra_roots: Sequence[Path] = ()) -> tuple[Path, str]:
    """The root a kept path lies in and the path relative to it. A checkpoint keeps a path as
    the file tools show it: relative to the workspace, or absolute in a directory the user
    added (tools/paths.py display_path); an absolute one is reached only through the added
    directory holding it now (the deepest), so one added in an earlier run and not in this
    one is refused, never reached. A `..` or `.` component is refused too (a damaged
    journal's path must not climb out of its root). Raises ToolError."""
    parts = rel.split("/")
    if any(part in ("..", ".") for part in parts) or not rel.strip("/"):
        raise ToolError(f"cannot reach {rel}: not a path the file tools keep")
    if not rel.startswith("/"):
        return workspace_root(workspace), rel
    path = Path(rel)
    holding = [r for r in map(workspace_root, extra_roots) if path.is_relative_to(r)]
    if not holding or path in holding:
        raise ToolError(
            f"cannot reach {rel}: it lies in no directory added to this run (--add-dir)"
        )
    root = max(holding, key=lambda r: len(r.parts))
    return root, path.relative_to(root).as_posix()


def _parent(workspace: Path, rel: str, create: bool) -> int:
    """The directory holding `rel`, reached from the workspace root without symlinks."""
    root = workspace_root(workspace)
    return open_directory_in_workspace(root, (root / rel).parent, rel, create=create)


def current(workspace: Path, rel: str, extra_roots: Sequence[Path] = ()) -> Current:
    """The state of the workspace file `rel` (or a file of an added directory: in_root), read
    without following a symlink anywhere below its root. Raises ToolError when it cannot be
    read."""
    shown = rel
    workspace, rel = in_root(workspace, rel, extra_roots)
    try:
        parent = _parent(workspace, rel, create=False)
    except (FileNotFoundError, NotADirectoryError):
        return Current("missing")
    except OSError as error:
        raise ToolError(f"cannot read {shown}: {error.strerror or error}") from None
    name = rel.rsplit("/", 1)[-1]
    try:
        try:
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return Current("missing")
        if stat.S_ISLNK(info.st_mode):
            return Current("link", os.fsencode(os.readlink(name, dir_fd=parent)))
        if stat.S_ISDIR(info.st_mode):
            return Current("dir")
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_COMPARE_BYTES:
            return Current("other")
        fd = os.open(name, os.O_RDONLY | NOFOLLOW | os.O_NONBLOCK, dir_fd=parent)
        with os.fdopen(fd, "rb") as stream:
            executable = bool(info.st_mode & stat.S_IXUSR)
            return Current("file", stream.read(MAX_COMPARE_BYTES + 1), executable)
    except OSError as error:
        raise ToolError(f"cannot read {shown}: {error.strerror or error}") from None
    finally:
        os.close(parent)


def put_back(
    workspace: Path,
    rel: str,
    data: bytes | None,
    mode: str | None,
    made_dir: str | None = None,
    extra_roots: Sequence[Path] = (),
) -> None:
    """Give the workspace path `rel` its old state: `data` as a file (or, with the link mode, as
    a symbolic link's target), or no file at all when `data` is None (then the directories up
    to `made_dir`, made for it, go too when empty). A directory standing where the file must
    be goes first when it holds nothing but empty directories (what is left once an undo
    removed the files pleat made in it), and is refused otherwise. Directories are made as
    needed, nothing outside the workspace is reached (nor outside the added directory holding
    an absolute `rel`: in_root). Raises ToolError."""
    shown = rel
    root, rel = in_root(workspace, rel, extra_roots)
    if made_dir is not None and made_dir.startswith("/"):
        top = Path(made_dir)
        made_dir = top.relative_to(root).as_posix() if top.is_relative_to(root) else None
    name = rel.rsplit("/", 1)[-1]
    try:
        if data is None:
            _remove(root, rel, name)
            if made_dir is not None and rel.startswith(made_dir + "/"):
                _remove_empty_dirs(root, rel, made_dir)
        elif mode == LINK_MODE:
            parent = _parent(root, rel, create=True)
            try:
                _unlink_entry(parent, name, rel)
                os.symlink(os.fsdecode(data), name, dir_fd=parent)
            finally:
                os.close(parent)
        else:  # renamed over whatever file or link is there
            _clear_directory(root, rel, name)
            atomic_write(root, root / rel, rel, data)
            if mode in (EXECUTABLE_MODE, REGULAR_MODE):
                _set_executable(root, rel, name, mode == EXECUTABLE_MODE)
    except OSError as error:
        raise ToolError(f"cannot restore {shown}: {error.strerror or error}") from None


def _remove(root: Path, rel: str, name: str) -> None:
    try:
        parent = _parent(root, rel, create=False)
    except (FileNotFoundError, NotADirectoryError):
        return  # gone already
    try:
        _unlink_entry(parent, name, rel)
    finally:
        os.close(parent)


def _remove_empty_dirs(root: Path, rel: str, top: str) -> None:
    """Remove `rel`'s parent directories up to `top`, each only while it is empty."""
    directory = rel.rsplit("/", 1)[0]
    while directory == top or directory.startswith(top + "/"):
        try:
            parent = _parent(root, directory, create=False)
        except (FileNotFoundError, NotADirectoryError):
            return
        try:
            os.rmdir(directory.rsplit("/", 1)[-1], dir_fd=parent)
        except OSError:
            return  # not empty (or not a directory any more): it stays, and so do its parents
        finally:
            os.close(parent)
        directory = directory.rsplit("/", 1)[0] if "/" in directory else ""


def _unlink_entry(parent: int, name: str, rel: str) -> None:
    """Remove the file or link at `name`, or a directory there holding only empty ones."""
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        _remove_empty_tree(parent, name, rel)
    else:
        os.unlink(name, dir_fd=parent)


def _clear_directory(root: Path, rel: str, name: str) -> None:
    """Remove a directory at `rel` holding only empty ones (a file is to be written there)."""
    try:
        parent = _parent(root, rel, create=False)
    except (FileNotFoundError, NotADirectoryError):
        return  # the write makes the parents
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            _remove_empty_tree(parent, name, rel)
    except FileNotFoundError:
        return
    finally:
        os.close(parent)


def _remove_empty_tree(parent: int, name: str, rel: str) -> None:
    """Remove the directory `name` and the empty directories below it; anything else in it (a
    file, a link: not pleat's to remove) refuses, and is left as it is."""
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW, dir_fd=parent)
    try:
        with os.scandir(fd) as entries:
            inside = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
        for entry_name, is_dir in inside:
            if not is_dir:
                raise ToolError(f"cannot restore {rel}: a directory holding other files is there")
            _remove_empty_tree(fd, entry_name, rel)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def _set_executable(root: Path, rel: str, name: str, executable: bool) -> None:
    """Executable where readable (as git checks an executable out: 0755 under a 022 umask), or
    executable by nobody (a plain file)."""
    parent = _parent(root, rel, create=False)
    try:
        mode = stat.S_IMODE(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        wanted = mode | (mode & 0o444) >> 2 if executable else mode & ~EXECUTE_BITS
        if wanted != mode:
            os.chmod(name, wanted, dir_fd=parent)
    finally:
        os.close(parent)
