"""/memory's list where there is no screen: the system prompt's instruction files, imports with
their importer, the nested files in force, the auto memory and what a new session loads of it,
and what was not read."""

from __future__ import annotations

from agent.terminal_text import visible
from agent.turn.instruction_set import InstructionSet
from sessions.memory_store import MemoryRefused, WorkspaceMemory, first_part

# How the auto memory's row names what it is.
AUTO_KIND = "auto"
# What its row says when the memory holds nothing yet.
EMPTY_MEMORY = "(empty: the model adds to it with its memory tool)"


def auto_memory_text(memory: WorkspaceMemory) -> tuple[str, str | None]:
    """(what a new session loads of the memory, with a line when that is not all of it, or a
    line saying it is empty; why it cannot be read, or None). Blocking: in a thread."""
    try:
        found = memory.read()
    except MemoryRefused as refused:
        return "", str(refused)
    part, cut = first_part(found.text)
    if not part.strip():
        return EMPTY_MEMORY, None
    rest = "\n[... a new session loads only this first part; the rest is in the file]"
    return part.strip() + (rest if cut else ""), None


def auto_memory_lines(memory: WorkspaceMemory | None) -> list[str]:
    """The auto memory's row and its loaded text indented under it (nothing when it is off).
    Blocking: in a thread."""
    if memory is None:
        return []
    text, problem = auto_memory_text(memory)
    if problem is not None:
        return [f"{AUTO_KIND:<8} {memory.path}: not read: {problem}"]
    return [f"{AUTO_KIND:<8} {memory.path}", *(f"  {line}" for line in text.splitlines())]


def memory_lines(
    loaded: InstructionSet, nested: list[str], memory: WorkspaceMemory | None = None
) -> list[str]:
    """One line per file in the system prompt's order, then the nested files in force, then the
    auto memory (when on), then a line per file not read and per import naming no file."""
    lines = [
        f"{file.kind:<8} {file.name}"
        + (f" (imported by {file.imported_by})" if file.imported_by else "")
        for file in loaded.files
    ]
    lines += [f"{'nested':<8} {name}" for name in nested]
    if not lines:
        lines.append(
            "no instruction file: AGENTS.md, CLAUDE.md, CLAUDE.local.md or ~/.claude/CLAUDE.md"
        )
    lines += auto_memory_lines(memory)
    lines += [f"not read: {line}" for line in loaded.skipped]
    lines += [f"import not found: {line}" for line in loaded.missing]
    return [visible(line) for line in lines]
