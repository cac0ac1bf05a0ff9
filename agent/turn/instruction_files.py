"""Instruction files, found by one loader: user-wide, the project's root, and nested ones."""

# The user's own file ($PLEAT_HOME/AGENTS.md) and the project's root file join the system prompt
# at a session's start; a subdirectory's file joins the conversation later, when the model first
# reads or edits a file under it (agent/turn/nested_instructions.py). Every one is read the same
# safe way (tools/workspace_text.py): a regular file inside its root (the workspace, or
# PLEAT_HOME for the user's), opened without blocking, never past MAX_INSTRUCTIONS_BYTES.

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sessions.paths import data_home
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

# Instruction file names, in order of preference in each directory: AGENTS.md is the
# cross-agent convention (Codex); CLAUDE.md is read where a project only has Claude Code's.
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")
# The user-wide file, in PLEAT_HOME (Codex keeps its own in ~/.codex/AGENTS.md).
USER_FILE = "AGENTS.md"
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


def _first_of(root: Path, directory: Path, names: tuple[str, ...], label: str) -> Instructions:
    """The first of `names` in `directory` that is a regular file inside `root`; the others
    tried are skipped with their reason. A file's name is shown relative to the root."""
    skipped: list[str] = []
    for name in names:
        path = directory / name
        found = read_workspace_text(root, path, MAX_INSTRUCTIONS_BYTES)
        if found.skipped is not None:
            skipped.append(f"{label} skipped: {found.skipped}")
        if found.text is None:
            continue
        shown = path.relative_to(root).as_posix()
        text = found.text
        if found.cut:
            text += f"\n[... {shown} cut at {MAX_INSTRUCTIONS_BYTES:,} bytes]"
        return Instructions(shown, text, tuple(skipped), path)
    return Instructions(None, None, tuple(skipped))


def project_instructions(workspace: Path) -> Instructions:
    """The workspace's AGENTS.md, else CLAUDE.md (see the module)."""
    root = workspace_root(workspace)
    return _first_of(root, root, INSTRUCTION_FILES, "project instructions")


def user_instructions() -> Instructions:
    """The user's own $PLEAT_HOME/AGENTS.md, for every project; named by its full path."""
    home = workspace_root(data_home())
    found = _first_of(home, home, (USER_FILE,), "user instructions")
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


def instruction_notes(workspace: Path) -> list[str]:
    """Why an instruction file of the system prompt was skipped, one line each (said at start)."""
    return [*user_instructions().skipped, *project_instructions(workspace).skipped]
