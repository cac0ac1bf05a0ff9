"""What write_file and edit_file share: loading the current text, atomic writes, diffs."""

from __future__ import annotations

import contextlib
import difflib
import os
import secrets
import stat
from pathlib import Path

from tools.base import ToolError
from tools.paths import NOFOLLOW, open_directory_in_workspace, open_in_workspace

# Largest file write_file or edit_file will load: both hold the whole text (twice, for the
# diff) in memory; 10 MiB is far beyond any hand-edited source file.
MAX_EDIT_BYTES = 10 * 1024 * 1024
# Characters of diff kept for the approval prompt and the UI: many screens already; beyond
# that a person cannot review it anyway.
MAX_DIFF_CHARS = 100_000
# Context lines around each change: the customary `diff -u` amount.
DIFF_CONTEXT_LINES = 3


def load_existing(workspace: Path, path: Path, rel: str) -> bytes | None:
    """The current bytes of the file at `path`, or None when it does not exist yet. Opened
    without following a symlink swapped in since the path was checked (tools/paths.py)."""
    try:
        info = path.stat()  # refuse devices and pipes before opening them at all
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolError(f"cannot read {rel}: {exc.strerror or exc}") from exc
    _check_kind(info, rel)
    try:
        fd = open_in_workspace(workspace, path, os.O_RDONLY | os.O_NONBLOCK, rel)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolError(f"cannot read {rel}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "rb") as stream:
            _check_kind(os.fstat(stream.fileno()), rel)  # what was opened, not what was checked
            data = stream.read(MAX_EDIT_BYTES + 1)  # the file may have grown since
    except OSError as exc:
        raise ToolError(f"cannot read {rel}: {exc.strerror or exc}") from exc
    if len(data) > MAX_EDIT_BYTES:
        raise ToolError(f"{rel} is over the {MAX_EDIT_BYTES}-byte limit for edits")
    return data


def _check_kind(info: os.stat_result, rel: str) -> None:
    """A regular file small enough to edit, or a ToolError saying what it is instead."""
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(f"{rel} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"{rel} is not a regular file (device, pipe or socket); refused")
    if info.st_size > MAX_EDIT_BYTES:
        raise ToolError(
            f"{rel} is {info.st_size} bytes, over the {MAX_EDIT_BYTES}-byte limit for edits; "
            "use run_command for files this large"
        )


def decode_lossless(data: bytes) -> str:
    """Decode UTF-8 so that invalid bytes survive a round trip (surrogateescape)."""
    return data.decode("utf-8", errors="surrogateescape")


def encode_lossless(text: str) -> bytes:
    """The inverse of decode_lossless: invalid bytes read earlier are written back unchanged."""
    return text.encode("utf-8", errors="surrogateescape")


def _displayable(text: str) -> str:
    """Text safe to print: escaped invalid bytes shown as U+FFFD."""
    return encode_lossless(text).decode("utf-8", errors="replace")


def line_count(text: str) -> int:
    """Lines as an editor counts them: a final line without a newline still counts."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def unified_diff(rel: str, old: str | None, new: str) -> str:
    """A `diff -u` of the change; `old` is None for a file being created."""
    old_lines = _displayable(old or "").splitlines(keepends=True)
    new_lines = _displayable(new).splitlines(keepends=True)
    pieces: list[str] = []
    for line in difflib.unified_diff(
        old_lines,
        new_lines,
        fromfile="/dev/null" if old is None else f"a/{rel}",
        tofile=f"b/{rel}",
        n=DIFF_CONTEXT_LINES,
    ):
        pieces.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    diff = "".join(pieces)
    if len(diff) > MAX_DIFF_CHARS:
        cut = len(diff) - MAX_DIFF_CHARS
        diff = diff[:MAX_DIFF_CHARS] + f"\n[diff cut: {cut} more chars]\n"
    return diff


def atomic_write(workspace: Path, path: Path, rel: str, data: bytes) -> None:
    """Write through a temporary file in the same directory and rename it over the target.

    Readers never see a half-written file, and a crash leaves the old content intact. An
    existing file keeps its permission bits; a new one gets the usual umask-based mode. The
    directory is reached from the workspace root without following symlinks, and the temp file
    is created and renamed relative to it, so a parent swapped for a symlink leading out
    cannot redirect the write, and a symlink swapped in as the target is replaced, not followed.
    """
    try:
        parent = open_directory_in_workspace(workspace, path.parent, rel, create=True)
        try:
            _replace_in(parent, path.name, data)
        finally:
            os.close(parent)
    except OSError as exc:
        raise ToolError(f"cannot write {rel}: {exc.strerror or exc}") from exc


def _replace_in(parent: int, name: str, data: bytes) -> None:
    """Atomically give the entry `name` of the directory `parent` the content `data`."""
    try:
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        mode = stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else None
    except FileNotFoundError:
        mode = None
    temp = f".{name}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW
    fd = os.open(temp, flags, 0o666, dir_fd=parent)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            if mode is not None:
                os.fchmod(stream.fileno(), mode)
            os.fsync(stream.fileno())
        os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=parent)
        raise
