"""The system prompt's instruction files as Claude Code finds them: user-wide, project, local."""

# In Claude Code's order, each file followed by the files it imports (agent/turn/
# instruction_imports.py), a later file speaking last so it wins where they differ:
#   1. the user's: Claude Code's ~/.claude/CLAUDE.md ($CLAUDE_CONFIG_DIR/CLAUDE.md when that is
#      set), then pleat's own $PLEAT_HOME/AGENTS.md (pleat's, so it speaks after Claude Code's);
#   2. the project's root file: AGENTS.md, else CLAUDE.md (agent/turn/instruction_files.py);
#   3. the project's CLAUDE.local.md: the user's private notes for this project (git-ignored).
# The user's files are theirs: ~/.claude/CLAUDE.md is read wherever it links to (a dotfiles
# repository, a Nix store), as their settings.json is, and imports files under the home. The
# project's are read and import as instruction_imports.py says. A subdirectory's files join later
# (agent/turn/nested_instructions.py).

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.claude_code.settings_file import claude_dir
from agent.turn.instruction_files import (
    MAX_INSTRUCTIONS_BYTES,
    Instructions,
    project_instructions,
    user_instructions,
)
from agent.turn.instruction_imports import Importer, ImportRules, Root
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

# The project's private file beside its AGENTS.md / CLAUDE.md (Claude Code's name for it).
LOCAL_FILE = "CLAUDE.local.md"
# Claude Code's user-wide file, in its configuration directory.
CLAUDE_USER_FILE = "CLAUDE.md"
# Bytes of the user's files, and apart of the project's, imports included: the cap one file had
# before imports (MAX_INSTRUCTIONS_BYTES), so the system prompt carries at most what it carried
# when it held one user file and one project file (2 x 32,000 bytes, about 16k tokens), however
# the text is split into files; neither side's files can crowd out the other's.
SCOPE_BYTES = MAX_INSTRUCTIONS_BYTES
# The root of the file system: the user's ~/.claude/CLAUDE.md is read wherever it links to.
ANYWHERE = Path("/")
# The scopes in words, for the line saying their budget is spent.
USER_SCOPE, PROJECT_SCOPE = "the user's instructions", "the project's instructions"


@dataclass(frozen=True)
class InstructionFile:
    """One file of the system prompt: what it is, its name as shown, where, its text."""

    kind: str  # "user", "project", "local" or "imported"
    name: str
    path: Path
    text: str
    imported_by: str | None = None  # for an imported file, the name of the file importing it


@dataclass(frozen=True)
class InstructionSet:
    """The files in order, a line for each file not read and why, and each import naming no file."""

    files: tuple[InstructionFile, ...]
    skipped: tuple[str, ...]
    missing: tuple[str, ...]


def home_directory() -> Path | None:
    """The user's home, resolved (None when none is known)."""
    home = os.path.expanduser("~")
    return None if home == "~" else Path(os.path.realpath(home))


def claude_user_file(environ: Mapping[str, str]) -> Path:
    """Claude Code's user-wide instruction file (beside its settings.json)."""
    return claude_dir(environ) / CLAUDE_USER_FILE


class _Shower:
    """Names a path as lines show it: workspace-relative, else from the home (~/), else whole."""

    def __init__(self, workspace: Path, home: Path | None) -> None:
        self.workspace = workspace
        self.home = home

    def __call__(self, path: Path) -> str:
        if path.is_relative_to(self.workspace):
            return path.relative_to(self.workspace).as_posix()
        if self.home is not None and path.is_relative_to(self.home):
            return "~/" + path.relative_to(self.home).as_posix()
        return str(path)


def _claude_user(path: Path, show: _Shower, max_bytes: int) -> Instructions:
    """~/.claude/CLAUDE.md, read wherever it links to, up to `max_bytes`; or why it is not."""
    found = read_workspace_text(ANYWHERE, path, max_bytes)
    shown = show(path)
    skipped: tuple[str, ...] = ()
    if found.skipped is not None:  # it names the file relative to "/": named as the user knows it
        why = found.skipped.replace(path.relative_to(ANYWHERE).as_posix(), shown, 1)
        skipped = (f"user instructions skipped: {why}",)
    if found.text is None:
        return Instructions(None, None, skipped)
    text = found.text + (f"\n[... {shown} cut at {max_bytes:,} bytes]" if found.cut else "")
    return Instructions(shown, text, skipped, path)


def _add(files: list[InstructionFile], importer: Importer, kind: str, found: Instructions) -> None:
    """A root file read (or the lines saying why not), then the files it imports."""
    importer.skipped += found.skipped
    if found.text is None or found.path is None or found.name is None:
        return
    name = found.name
    if importer.budget <= 0:
        spent = f"{importer.scope} already take {importer.total:,} bytes"
        importer.skipped.append(f"{kind} instructions skipped: {name} not read: {spent}")
        return
    importer.take(found.text)
    files.append(InstructionFile(kind, name, found.path, found.text))
    for extra in importer.follow(name, found.path, found.text):
        files.append(
            InstructionFile("imported", extra.name, extra.path, extra.text, extra.imported_by)
        )


def _importer(rules: ImportRules, scope: str, show: _Shower, seen: set[str]) -> Importer:
    """A scope's importer, its whole budget left."""
    return Importer(rules, SCOPE_BYTES, scope, SCOPE_BYTES, show, seen)


def _rules(workspace: Path, environ: Mapping[str, str]) -> tuple[_Shower, ImportRules, ImportRules]:
    """How paths are shown, and where the user's and the project's files may import from."""
    root, home = workspace_root(workspace), home_directory()
    show = _Shower(root, home)
    mine = ImportRules(() if home is None else (Root(home),), "under your home directory", home)
    claude_home = Path(os.path.realpath(claude_user_file(environ).parent))
    allowed = f"inside the workspace, or a Markdown file under {show(claude_home)}"
    project = ImportRules((Root(root), Root(claude_home, markdown_only=True)), allowed, home)
    return show, mine, project


def load_instructions(workspace: Path, environ: Mapping[str, str] | None = None) -> InstructionSet:
    """Every instruction file of a new session's system prompt, in order (see the module)."""
    environ = os.environ if environ is None else environ
    show, user_rules, project_rules = _rules(workspace, environ)
    seen: set[str] = set()  # real paths read already, across both scopes: each file once
    mine = _importer(user_rules, USER_SCOPE, show, seen)
    project = _importer(project_rules, PROJECT_SCOPE, show, seen)
    files: list[InstructionFile] = []
    claude = Path(os.path.abspath(claude_user_file(environ)))
    _add(files, mine, "user", _claude_user(claude, show, max(mine.budget, 0)))
    pleat_own = user_instructions(max(mine.budget, 0))  # named by its whole path
    if pleat_own.path is not None:
        pleat_own = Instructions(
            show(pleat_own.path), pleat_own.text, pleat_own.skipped, pleat_own.path
        )
    _add(files, mine, "user", pleat_own)
    found = project_instructions(workspace, max_bytes=max(project.budget, 0))
    _add(files, project, "project", found)
    local = project_instructions(workspace, (LOCAL_FILE,), max(project.budget, 0))
    _add(files, project, "local", local)
    return InstructionSet(
        tuple(files), (*mine.skipped, *project.skipped), (*mine.missing, *project.missing)
    )


def with_imports(workspace: Path, found: Instructions) -> tuple[str, tuple[str, ...]]:
    """A subdirectory's instruction file's text followed by the files it imports, under a
    project's rules and the budget of one file; and a line for each import not read."""
    assert found.text is not None and found.path is not None and found.name is not None
    show, _, project_rules = _rules(workspace, os.environ)
    importer = _importer(project_rules, f"the instructions of {found.name}", show, set())
    importer.take(found.text)
    parts = [found.text]
    for extra in importer.follow(found.name, found.path, found.text):
        parts.append(f"Imported by {extra.imported_by}, from {extra.name}:\n{extra.text.strip()}")
    return "\n\n".join(parts), tuple(importer.skipped)


def heading(file: InstructionFile) -> str:
    """The line introducing a file's text in the system prompt."""
    if file.kind == "user":
        return f"The user's own instructions, for every project, from {file.name}:"
    if file.kind == "local":
        return f"The user's private instructions for this project, from {file.name}:"
    if file.kind == "imported":
        return f"Imported by {file.imported_by}, from {file.name}:"
    return f"Project instructions from {file.name}:"


def instruction_notes(workspace: Path) -> list[str]:
    """Why an instruction file of the system prompt was not read, one line each (said at start)."""
    return list(load_instructions(workspace).skipped)
