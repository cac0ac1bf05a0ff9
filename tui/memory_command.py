"""/memory in the TUI: the instruction files in use and the auto memory, to open in an editor;
`#` notes added."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agent.slash.memory_list import AUTO_KIND, auto_memory_text
from agent.turn.instruction_files import (
    INSTRUCTION_FILES,
    USER_FILE,
    NoteRefused,
    append_note,
    note_target,
)
from agent.turn.instruction_set import InstructionFile, load_instructions
from sessions.memory_store import WorkspaceMemory
from sessions.paths import data_home, private_dir
from tools.memory import MEMORY_TOOL_NAME, memory_of
from tui import asking, queued
from tui.host import Host
from tui.screens.memory import ADD, PROMPT, MemoryFile, MemoryScreen, NoteScreen


def _row(file: InstructionFile) -> MemoryFile:
    """A file of the system prompt as /memory lists it: an import with who imported it."""
    name = (
        file.name if file.imported_by is None else f"{file.name} (imported by {file.imported_by})"
    )
    return MemoryFile(file.kind, name, file.path, True)


def memory_files(
    workspace: Path, nested: list[str], auto: WorkspaceMemory | None = None
) -> tuple[list[MemoryFile], list[str]]:
    """Every instruction file of the system prompt in its order (imports after their importer),
    with pleat's user file and the project's AGENTS.md offered to create when missing (unless
    something unusable is in the way), then the nested files in force, then the auto memory's
    file (when it is on); and a line for each file not read, and each import naming no file
    (blocking: in a thread)."""
    loaded = load_instructions(workspace)
    files = [_row(file) for file in loaded.files]
    kinds = [file.kind for file in loaded.files]
    home = data_home() / USER_FILE
    if not os.path.lexists(home):
        at = next((n for n, kind in enumerate(kinds) if kind in ("project", "local")), len(kinds))
        files.insert(at, MemoryFile("user", str(home), home, False))
        kinds.insert(at, "user")
    root = workspace.resolve()
    if "project" not in kinds and not os.path.lexists(root / INSTRUCTION_FILES[0]):
        at = kinds.index("local") if "local" in kinds else len(kinds)
        files.insert(
            at, MemoryFile("project", INSTRUCTION_FILES[0], root / INSTRUCTION_FILES[0], False)
        )
    files += [MemoryFile("nested", name, root / name, True) for name in nested]
    notes = [*loaded.skipped, *(f"import not found: {line}" for line in loaded.missing)]
    if auto is not None:  # its directory made, so that an editor can create the file
        exists = os.path.lexists(auto.path)
        try:
            private_dir(auto.directory)
        except OSError as error:
            notes.append(f"auto memory: cannot make {auto.directory}: {error.strerror or error}")
        files.append(MemoryFile(AUTO_KIND, str(auto.path), auto.path, exists))
    return files, notes


async def memory(host: Host, arg: str) -> None:
    """`/memory`: the list; `/memory # note`, or a prompt starting with `#`: add the note."""
    if arg.startswith("#"):
        await add_note(host, arg)
        return
    agent = host.agent
    nested = agent.nested.in_use() if agent is not None else []
    auto = memory_of(agent.registry.get(MEMORY_TOOL_NAME)) if agent is not None else None
    files, notes = await asyncio.to_thread(memory_files, host.workspace, nested, auto)
    if agent is not None:
        notes += agent.nested.skipped
    shown = None
    if auto is not None:
        text, problem = await asyncio.to_thread(auto_memory_text, auto)
        shown = text if problem is None else f"not read: {problem}"
    await host.ask_screen(MemoryScreen(files, notes, shown))


async def add_note(host: Host, text: str) -> None:
    """A `#` prompt: asked first, then added to the project's file and told to the model with
    the next prompt; or sent as a prompt after all; or put back into the input."""
    note = text.lstrip("#").strip()
    if not note:
        await host.conversation.add_notice("write the note after the #, e.g. `# use tabs`")
        return
    target = await asyncio.to_thread(note_target, host.workspace)
    answer = await asking.modal(host, NoteScreen(target, note), f"add to {target}?")
    if answer == PROMPT:
        await send_as_prompt(host, text)
        return
    if answer != ADD:
        host.prompt.value = text  # nothing is lost: back in the input, to edit
        return
    try:
        name = await asyncio.to_thread(append_note, host.workspace, note)
    except NoteRefused as error:
        await host.conversation.add_notice(f"not added: {error}", "error")
        return
    if host.agent is not None:
        host.agent.nested.note(name, note)
    await host.conversation.add_notice(
        f"added to {name}: the model reads it with your next prompt, and every new session"
    )


async def send_as_prompt(host: Host, text: str) -> None:
    """The `#` text as an ordinary prompt (a Markdown heading, say), as the app sends one."""
    from tui.tasks import run_turn

    if host.agent is None:
        return
    if host.busy:
        queued.put(host, text)
        return
    host.start_work("turn", run_turn(host, host.agent, queued.take_all_with(host, text)))
