"""Reading a small workspace file for pleat's own use (instructions, ignore rules), safely.

The workspace is not pleat's: an `AGENTS.md` may be a symlink to `/proc/self/environ` or to a
file outside it, a `.gitignore` may be a FIFO that blocks whoever opens it, or a device that
never ends. Such a file is opened without blocking, followed only where it stays inside the
workspace, read only when it is a regular file, and never past a size cap; otherwise it is
skipped with a one-line reason.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tools.errors import ToolError
from tools.paths import check_descriptor, workspace_root


@dataclass(frozen=True)
class WorkspaceText:
    """What reading one file gave: its text (None when absent or skipped), whether it was
    cut at the cap, and why it was skipped (None when it was read or is simply absent)."""

    text: str | None
    cut: bool = False
    skipped: str | None = None


def _kind(mode: int) -> str:
    """A file type in words, for the reason a file was skipped."""
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def read_workspace_text(workspace: Path, path: Path, max_bytes: int) -> WorkspaceText:
    """The text of `path` (inside `workspace`), at most `max_bytes` of it, decoded as UTF-8
    with invalid bytes replaced. Never blocks, never reads outside the workspace."""
    root = workspace_root(workspace)
    name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    try:
        # Checked before opening too: opening some devices does something (a tape rewinds).
        if not Path(os.path.realpath(path)).is_relative_to(root):
            return WorkspaceText(None, skipped=f"{name} leads outside the workspace; not read")
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            return WorkspaceText(None, skipped=f"{name} is {_kind(mode)}, not a file; not read")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        return WorkspaceText(None)
    except OSError as exc:
        return WorkspaceText(None, skipped=f"{name}: cannot be read ({exc.strerror or exc})")
    try:
        try:
            check_descriptor(root, fd, name)
        except ToolError:
            return WorkspaceText(None, skipped=f"{name} leads outside the workspace; not read")
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            return WorkspaceText(None, skipped=f"{name} is {_kind(mode)}, not a file; not read")
        chunks: list[bytes] = []
        left = max_bytes + 1  # one byte more than the cap tells a file that is longer
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 16))):
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        return WorkspaceText(None, skipped=f"{name}: cannot be read ({exc.strerror or exc})")
    finally:
        os.close(fd)
    data = b"".join(chunks)
    cut = len(data) > max_bytes
    text = data[:max_bytes].decode("utf-8", errors="replace")
    return WorkspaceText(text, cut=cut)
