"""Instruction files, found by one loader: user-wide, the project's root, and nested ones."""

# The user's own file ($PLEAT_HOME/AGENTS.md) and the project's root file join the system prompt
# at a session's start (with Claude Code's files and imports: agent/turn/instruction_set.py);
# a subdirectory's file joins the conversation later, when the model first
# reads or edits a file under it (agent/turn/nested_instructions.py). Every one is read the same
# safe way (tools/workspace_text.py): a regular file inside its root (the workspace, or
# PLEAT_HOME for the user's), opened without blocking, never past MAX_INSTRUCTIONS_BYTES.

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sessions.paths import data_home
from tools.base import ToolError
from tools.paths import open_in_workspace, resolve_in_workspace, workspace_root
from tools.workspace_text import read_workspace_text

# Instruction file names, in order of preference in each directory: AGENTS.md is the
# cross-agent convention (Codex); CLAUDE.md is read where a project only has Claude Code's.
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
# The user-wide file, in PLEAT_HOME (Codex keeps its own in ~/.codex/AGENTS.md).
USER_FILE = "AGENTS.md"
# Characters of a note a `#` prompt adds to the project's file: a rule is a line or a paragraph;
# a longer text is a prompt sent by mistake, and is refused rather than written.
MAX_NOTE_CHARS = 4_000
# Instruction files are read up to this many bytes, and cut there: they ride along in every
# request, and a file this size (about 8k tokens) already costs more than most turns' own content.
MAX_INSTRUCTIONS_BYTES = 32_000


@dataclass(frozen=True)
class Instructions:
    """The instruction file used (its name and text, or None), and one line for each
    instruction file skipped on the way (a symlink leading out, a pipe, a device ...)."""

    name: str | None
    text: str | None
    skipped: tuple[str, ...]
    path: Path | None = None  # where it is (None when none is used)


def _first_of(
    root: Path,
    directory: Path,
    names: tuple[str, ...],
    label: str,
    max_bytes: int = MAX_INSTRUCTIONS_BYTES,
) -> Instructions:
    """The first of `names` in `directory` that is a regular file inside `root`, read up to
    `max_bytes`; the others tried are skipped with their reason. A file's name is shown
    relative to the root."""
    skipped: list[str] = []
    for name in names:
        path = directory / name
        found = read_workspace_text(root, path, max_bytes)
        if found.skipped is not None:
            skipped.append(f"{label} skipped: {found.skipped}")
        if found.text is None:
            continue
        shown = path.relative_to(root).as_posix()
        text = found.text
        if found.cut:
            text += f"\n[... {shown} cut at {max_bytes:,} bytes]"
        return Instructions(shown, text, tuple(skipped), path)
    return Instructions(None, None, tuple(skipped))


def project_instructions(
    workspace: Path,
    names: tuple[str, ...] = INSTRUCTION_FILES,
    max_bytes: int = MAX_INSTRUCTIONS_BYTES,
) -> Instructions:
    """The workspace's AGENTS.md, else CLAUDE.md (see the module); or the first of `names`."""
    root = workspace_root(workspace)
    label = "project instructions" if names == INSTRUCTION_FILES else "local instructions"
    return _first_of(root, root, names, label, max_bytes)


def user_instructions(max_bytes: int = MAX_INSTRUCTIONS_BYTES) -> Instructions:
    """The user's own $PLEAT_HOME/AGENTS.md, for every project; named by its full path."""
    home = workspace_root(data_home())
    found = _first_of(home, home, (USER_FILE,), "user instructions", max_bytes)
    if found.path is None:
        return found
    return Instructions(str(found.path), found.text, found.skipped, found.path)


def directory_instructions(workspace: Path, directory: str) -> Instructions:
    """The instruction file of one subdirectory (`directory`: workspace-relative, posix)."""
    root = workspace_root(workspace)
    return _first_of(root, root / directory, INSTRUCTION_FILES, "nested instructions")


def directories_of(file: str) -> list[str]:
    """The subdirectories above a workspace-relative file, outermost first, the root left out:
    "src/api/app.py" -> ["src", "src/api"]. Nothing for a path that climbs out ("..")."""
    parts = PurePosixPath(file).parts[:-1]  # "." segments are dropped by PurePosixPath
    if any(part in ("..", "/") for part in parts):
        return []
    return ["/".join(parts[: depth + 1]) for depth in range(len(parts))]


class NoteRefused(Exception):
    """A note that was not added: one line saying why; the file is unchanged."""


def note_target(workspace: Path) -> str:
    """The project file a note goes to: the root file in use, else a new AGENTS.md."""
    return project_instructions(workspace).name or INSTRUCTION_FILES[0]


def append_note(workspace: Path, note: str) -> str:
    """Add `note` (a `#` prompt's text) at the end of the project's instruction file, as a list
    item when it is one line; returns the file's name. The file is written only where it is a
    regular file inside the workspace, reached without a symlink. Raises NoteRefused."""
    text = note.strip()
    if not text:
        raise NoteRefused("the note is empty: write it after the #")
    if len(text) > MAX_NOTE_CHARS:
        raise NoteRefused(f"the note is over {MAX_NOTE_CHARS:,} characters: not added")
    name = note_target(workspace)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY
    try:
        fd = open_in_workspace(workspace, resolve_in_workspace(workspace, name), flags, name)
    except (OSError, ToolError) as error:
        why = error.strerror if isinstance(error, OSError) else str(error)
        raise NoteRefused(f"{name} cannot be written: {why}") from None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise NoteRefused(f"{name} is not a regular file: not written")
        ends_a_line = found.st_size == 0 or os.pread(fd, 1, found.st_size - 1) == b"\n"
        item = f"- {text}" if "\n" not in text else text
        added = ("" if ends_a_line else "\n") + item + "\n"
        os.write(fd, added.encode("utf-8", errors="replace"))  # a lone surrogate becomes "?"
    except OSError as error:
        raise NoteRefused(f"{name} cannot be written: {error.strerror or error}") from None
    finally:
        os.close(fd)
    return name
