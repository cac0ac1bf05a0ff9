"""/memory's list where there is no screen: the system prompt's instruction files, imports with
their importer, the nested files in force, and what was not read."""

from __future__ import annotations

from agent.terminal_text import visible
from agent.turn.instruction_set import InstructionSet


def memory_lines(loaded: InstructionSet, nested: list[str]) -> list[str]:
    """One line per file in the system prompt's order, then the nested files in force, then a
    line per file not read and per import naming no file."""
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
    lines += [f"not read: {line}" for line in loaded.skipped]
    lines += [f"import not found: {line}" for line in loaded.missing]
    return [visible(line) for line in lines]
