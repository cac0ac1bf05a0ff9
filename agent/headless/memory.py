"""`pleat -p "/memory"`: the system prompt's instruction files, imports with their importer."""

from __future__ import annotations

import asyncio
from typing import TextIO

from agent.headless.exit_codes import EXIT_CONFIG, EXIT_OK
from agent.terminal_text import visible
from agent.turn.instruction_set import InstructionSet, load_instructions
from agent.turn.loop import Agent
from sessions.store import Session


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


async def run_memory(agent: Agent, session: Session, arg: str, out: TextIO, err: TextIO) -> int:
    """The list; a `# note` is the TUI's (it asks first): refused here, with where to write."""
    if arg.strip():
        print(
            "pleat: error: /memory takes nothing headless; add a note in the TUI (`# note`) "
            "or write it into AGENTS.md yourself",
            file=err,
        )
        return EXIT_CONFIG
    loaded = await asyncio.to_thread(load_instructions, agent.context.workspace)
    out.write("\n".join(memory_lines(loaded, agent.nested.in_use())) + "\n")
    return EXIT_OK
