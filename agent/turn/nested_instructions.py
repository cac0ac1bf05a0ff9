"""Instructions joining a session mid-way: a subdirectory's AGENTS.md, and the user's `#` notes."""

# A subdirectory's file joins when the model first reads or edits a file under it (Codex's
# hierarchy: the nearest file speaks last, so it wins where they differ). The system prompt never
# changes mid-session (the provider's prompt cache must hold), so a nested file comes as an
# injected user message, right after the tool results of the step that touched its directory,
# before the next model call. A file is sent once while its message is in the live
# conversation: when a fold takes that message into a chunk, the file is sent again the next
# time the model touches its directory, since the model no longer has it word for word. What a
# step read or edited is taken from the results' facts (tools/result_facts.py), so only files
# the tools really read, wrote or edited count, never a refused or failed call. A `#` note the
# user adds to the project's file is told to the model with the next prompt, and again after a
# fold took that message away.

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agent.turn.instruction_files import (
    MAX_INSTRUCTIONS_BYTES,
    directories_of,
    directory_instructions,
)
from agent.turn.instruction_set import with_imports
from sessions.messages import Message
from tools.result_facts import ResultFacts

# The meta key of the injected message: the workspace-relative paths of the files it carries
# (and of those it only names, when they did not fit).
INSTRUCTIONS_KEY = "instructions"
# The meta key of the message telling the model of `#` notes: the notes it carries.
NOTES_KEY = "notes"
# Characters of instruction text one step adds, all files together: the cap of one file, so a
# step touching many directories adds no more than the root file may. The nearest file always
# comes (already cut to that cap), the next nearest while they fit; those left out are named
# for the model to read itself.
MAX_STEP_CHARS = MAX_INSTRUCTIONS_BYTES


class NestedHost(Protocol):
    """What the nested files need of the agent: its history, and the way into it."""

    history: list[Message]

    def add(self, message: Message) -> Message: ...


@dataclass(frozen=True)
class Joined:
    """A nested instruction file sent in this session."""

    name: str  # workspace-relative, e.g. src/api/AGENTS.md
    path: Path


def in_context(history: Sequence[Message]) -> set[str]:
    """The directories whose instruction file (sent or named) is in the live history."""
    held: set[str] = set()
    for message in history:
        names = message.meta.get(INSTRUCTIONS_KEY) if message.role == "user" else None
        if isinstance(names, list):
            held |= {name.rpartition("/")[0] for name in names if isinstance(name, str)}
    return held


def touched(history: Sequence[Message]) -> list[str]:
    """The files the last step's tool results read, wrote or edited (the run of tool messages
    ending the history), in call order."""
    files: list[str] = []
    index = len(history)
    while index and history[index - 1].role == "tool":
        index -= 1
    for message in history[index:]:
        facts = ResultFacts.of_message(message.meta)
        if facts is not None and not message.meta.get("is_error"):
            files += [*facts.files_read, *facts.files_written, *facts.files_edited]
    return files


def message_text(found: Sequence[tuple[str, str]], named: Sequence[str]) -> str:
    """The injected message: each file with where it applies, the outermost first."""
    parts = [
        f"Instructions from {name} (for files under {name.rpartition('/')[0]}/; where they "
        f"differ from the project's, these win):\n{text.strip()}"
        for name, text in found
    ]
    if named:
        parts.append(
            "Also in force, not shown here for their size (read them with read_file): "
            + ", ".join(named)
        )
    return "\n\n".join(parts)


class NestedInstructions:
    """Adds the nested instruction files a step's tool calls reached (see the module)."""

    def __init__(self, agent: NestedHost, workspace: Path) -> None:
        self.agent = agent
        self.workspace = workspace
        # Every nested file sent by this agent, by name, in order (/memory lists them).
        self.joined: dict[str, Joined] = {}
        # Why a nested file was not read (a symlink leading out, a pipe ...), one line each.
        self.skipped: list[str] = []
        # The notes the user added to the project's file in this run (`#` prompts), and that
        # file's name.
        self.notes: list[str] = []
        self.notes_file = ""

    def _find(self, files: Sequence[str], held: set[str]) -> list[tuple[str, str, Path]]:
        """(name, text, path) of the files to send, outermost first (blocking: in a thread)."""
        found: list[tuple[str, str, Path]] = []
        seen: set[str] = set(held)
        for file in files:
            for directory in directories_of(file):
                if directory in seen:
                    continue
                seen.add(directory)
                instructions = directory_instructions(self.workspace, directory)
                self.skipped += [s for s in instructions.skipped if s not in self.skipped]
                if instructions.text is not None and instructions.name and instructions.path:
                    text, skipped = with_imports(self.workspace, instructions)  # its `@path`s
                    self.skipped += [s for s in skipped if s not in self.skipped]
                    found.append((instructions.name, text, instructions.path))
        return found

    async def after_tools(self) -> Message | None:
        """After a step's tool results: the message carrying the instruction files of the
        directories it reached that the conversation does not hold yet (None: nothing new)."""
        files = touched(self.agent.history)
        if not files:
            return None
        held = in_context(self.agent.history)
        found = await asyncio.to_thread(self._find, files, held)
        if not found:
            return None
        shown: list[tuple[str, str]] = []
        named: list[str] = []
        room = MAX_STEP_CHARS
        for name, text, _ in sorted(found, key=lambda f: -f[0].count("/")):  # nearest first
            if not shown or len(text) <= room:  # the nearest always: it is within one file's cap
                shown.append((name, text))
                room -= len(text)
            else:
                named.append(name)
        shown.sort(key=lambda f: f[0].count("/"))  # then read outermost first, nearest last
        self.joined |= {name: Joined(name, path) for name, _, path in found}
        names = [name for name, _ in shown] + named
        body = message_text(shown, named)
        meta = {"injected": True, INSTRUCTIONS_KEY: names}
        return self.agent.add(Message(role="user", content=body, meta=meta))

    def in_use(self) -> list[str]:
        """The nested files in force: sent by this agent, or held by its live history (a
        resumed session's), outermost first."""
        names = set(self.joined)
        for message in self.agent.history:
            held = message.meta.get(INSTRUCTIONS_KEY) if message.role == "user" else None
            names |= {n for n in held if isinstance(n, str)} if isinstance(held, list) else set()
        return sorted(names, key=lambda name: (name.count("/"), name))

    def note(self, name: str, text: str) -> None:
        """A note the user just added to the project's file `name` (a `#` prompt): the model
        is told with the next prompt, since the system prompt keeps the file as it was."""
        self.notes.append(f"- {text.strip()}" if "\n" not in text.strip() else text.strip())
        self.notes_file = name

    def add_notes(self) -> None:
        """After a prompt: this run's notes the live history does not hold (new ones, or ones a
        fold took into a chunk), as one injected message."""
        held: set[str] = set()
        for message in self.agent.history:
            if isinstance(noted := message.meta.get(NOTES_KEY), list):
                held |= {note for note in noted if isinstance(note, str)}
        missing = [note for note in self.notes if note not in held]
        if not missing:
            return
        said = f"[pleat: the user added to {self.notes_file}, for this and later sessions]"
        text = "\n".join([said, *missing])
        meta = {"injected": True, NOTES_KEY: missing}
        self.agent.add(Message(role="user", content=text, meta=meta))
