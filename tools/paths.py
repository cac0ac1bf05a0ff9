"""Confine every path a tool touches to the workspace root, symlinks included."""

from __future__ import annotations

from pathlib import Path

from tools.base import ToolError


def workspace_root(workspace: Path) -> Path:
    """The workspace itself, fully resolved (it may sit behind a symlink, e.g. /tmp on macOS)."""
    return workspace.resolve(strict=False)


def resolve_in_workspace(workspace: Path, raw: str) -> Path:
    """Resolve `raw` (relative to the workspace, or absolute) and refuse anything outside it.

    The check runs on the fully resolved path, so `..` segments, absolute paths elsewhere and
    symlinks (on the file or on any parent directory) that lead out are all refused alike.
    """
    if not raw or not raw.strip():
        raise ToolError("empty path; give a path relative to the workspace")
    if "\x00" in raw:
        raise ToolError(f"invalid path {raw!r}: it contains a NUL byte")
    root = workspace_root(workspace)
    candidate = Path(raw)
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        resolved = candidate.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on Python 3.11/3.12
        raise ToolError(f"cannot resolve path {raw!r}: {exc}") from exc
    if resolved != root and not resolved.is_relative_to(root):
        raise ToolError(f"path {raw!r} is outside the workspace ({root}); access refused")
    return resolved


def display_path(workspace: Path, path: Path) -> str:
    """The workspace-relative posix form of `path` for messages ("." for the root itself)."""
    root = workspace_root(workspace)
    try:
        relative = path.relative_to(root)
    except ValueError:
        try:
            relative = path.resolve(strict=False).relative_to(root)
        except (ValueError, OSError, RuntimeError):
            return str(path)
    return relative.as_posix() or "."
