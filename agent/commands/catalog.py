"""Custom slash commands: markdown files whose body is a prompt, for both front ends.

The files (agent/commands/files.py) are read at session start and checked again on every use
(a listing and a stat per file, well under a millisecond for a real setup: only files whose
stamp changed are read again), so an edit takes effect without restarting. A name defined
twice is taken from the first directory in command_sources' order (the project's before the
user's, pleat's before Claude Code's). A command of a built-in's name is kept: it is what `/NAME`
runs, the built-in staying `/pleat:NAME` (agent/commands/resolution.py), and that is said once;
a name reserved to pleat (`/help`, `/quit`, any `/pleat:NAME`) is not used, said once too.
A plugin's commands (agent/plugins/) come last and are named as Claude Code names them:
`/plugin:command` always, and the bare `/command` too where no other command (nor a built-in)
has that name.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.commands.builtin import BY_NAME, RESERVED_NAMES
from agent.commands.files import (
    NAMESPACE_SEPARATOR,
    CommandFile,
    CommandFileError,
    CommandSource,
    Scope,
    command_sources,
    list_command_files,
    read_command_file,
)
from agent.commands.front_matter import FrontMatterError, parse_document
from sessions.short_text import quoted

# The names a command file never takes, in either front end (agent/commands/builtin.py).
RESERVED_COMMANDS = RESERVED_NAMES
# Characters of a description shown in the / list, /help and the palette (one line): the
# list's row is about this wide; a longer one is cut with an ellipsis.
MAX_DESCRIPTION_CHARS = 100
# Characters of an argument hint shown after the name ("[file] [focus]").
MAX_HINT_CHARS = 60
# A typed command: `/name` (a namespace is `/frontend:component`) and, after whitespace, its
# arguments. `/etc/hosts` is not one (a path, sent as a prompt).
INVOCATION = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:\s+(.*))?", re.DOTALL)


def invocation(text: str) -> tuple[str, str] | None:
    """(name, arguments) of a typed `/name args`; None for a prompt or a path."""
    match = INVOCATION.fullmatch(text.strip())
    if match is None:
        return None
    return match.group(1), (match.group(2) or "").strip()


@dataclass(frozen=True)
class CustomCommand:
    """A command from a file: its name (without the slash), one-line description and argument
    hint, whether it is the project's or the user's, its file as shown, and its prompt."""

    name: str
    description: str
    argument_hint: str
    scope: Scope
    shown: str
    body: str

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.argument_hint}".rstrip()


def one_line(text: str, limit: int) -> str:
    """`text` on one line (runs of whitespace as one space), cut at `limit` with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _described(body: str) -> str:
    """A command without a description is described by its prompt's first line."""
    for line in body.splitlines():
        if line.strip().lstrip("#").strip():
            return line.strip().lstrip("#").strip()
    return ""


def parse_command(file: CommandFile, text: str) -> CustomCommand:
    """The command a file's text defines; FrontMatterError for a malformed front matter."""
    document = parse_document(text)
    description = document.fields.get("description") or _described(document.body)
    return CustomCommand(
        name=file.name,
        description=one_line(description, MAX_DESCRIPTION_CHARS),
        argument_hint=one_line(document.fields.get("argument-hint", ""), MAX_HINT_CHARS),
        scope=file.source.scope,
        shown=file.shown,
        body=document.body.strip("\n"),
    )


class CommandCatalog:
    """The custom commands of one workspace, kept current by refresh(); safe to refresh from
    several threads (the TUI refreshes off its event loop)."""

    def __init__(
        self,
        workspace: Path,
        sources: Sequence[CommandSource] | None = None,
        reserved: frozenset[str] = RESERVED_COMMANDS,
        plugin_sources: Sequence[CommandSource] = (),
    ) -> None:
        self.workspace = workspace
        self._sources = tuple(sources) if sources is not None else None  # found at first use
        self._plugin_sources = tuple(plugin_sources)
        self.reserved = reserved
        self._commands: dict[str, CustomCommand] = {}
        self._aliases: dict[str, str] = {}  # a plugin command's bare name -> its full name
        self._notes: list[str] = []
        self._reported: set[str] = set()
        # Per file, its stamp when last read and what it gave (a command, or why not): an
        # unchanged file is not read again.
        self._read: dict[Path, tuple[tuple[int, int, int, int], CustomCommand | str]] = {}
        self._lock = threading.Lock()

    @property
    def commands(self) -> tuple[CustomCommand, ...]:
        """The commands in use, by name."""
        return tuple(sorted(self._commands.values(), key=lambda c: c.name))

    def get(self, name: str) -> CustomCommand | None:
        """The command named `name` (a plugin's also by its bare name, where that is free)."""
        return self._commands.get(name) or self._commands.get(self._aliases.get(name, ""))

    def new_notes(self) -> list[str]:
        """The notes (files skipped, names clashing) not said before: each is said once."""
        with self._lock:
            fresh = [note for note in self._notes if note not in self._reported]
            self._reported.update(fresh)
            return fresh

    def refresh(self) -> None:
        """Look at the command directories again; read the files that changed."""
        with self._lock:
            if self._sources is None:
                self._sources = command_sources(self.workspace)
            commands: dict[str, CustomCommand] = {}
            notes: list[str] = []
            read: dict[Path, tuple[tuple[int, int, int, int], CustomCommand | str]] = {}
            for source in (*self._sources, *self._plugin_sources):
                listing = list_command_files(source)
                notes += listing.notes
                for file in listing.files:
                    known = self._read.get(file.path)
                    outcome = known[1] if known and known[0] == file.stamp else _load(file)
                    read[file.path] = (file.stamp, outcome)
                    if isinstance(outcome, str):
                        notes.append(outcome)
                    elif outcome.name in self.reserved:
                        notes.append(
                            f"custom command /{outcome.name} ({quoted(outcome.shown)}) is not "
                            f"used: /{outcome.name} always runs pleat's built-in"
                        )
                    elif outcome.name not in commands:  # the first directory wins
                        commands[outcome.name] = outcome
            notes += [_shadow_note(c) for c in commands.values() if c.name in BY_NAME]
            self._aliases = _bare_names(commands, frozenset(BY_NAME) | self.reserved)
            self._read, self._commands, self._notes = read, commands, notes


def _bare_names(commands: dict[str, CustomCommand], builtins: frozenset[str]) -> dict[str, str]:
    """A plugin's `/plugin:command` reached as `/command` too, where no other command (a
    file's, a built-in, another plugin's) has that name: bare name -> full name."""
    bare: dict[str, list[str]] = {}
    for command in commands.values():
        if command.scope == "plugin":
            short = command.name.partition(NAMESPACE_SEPARATOR)[2]
            bare.setdefault(short, []).append(command.name)
    return {
        short: owners[0]
        for short, owners in bare.items()
        if len(owners) == 1 and short not in commands and short not in builtins
    }


def _shadow_note(command: CustomCommand) -> str:
    """Said once for a command file that takes a built-in's name."""
    return (
        f"/{command.name} runs the {command.scope} command {quoted(command.shown)}; "
        f"pleat's built-in is {BY_NAME[command.name].qualified}"
    )


def _load(file: CommandFile) -> CustomCommand | str:
    """The command a file defines, or the one-line reason it is skipped."""
    try:
        return parse_command(file, read_command_file(file))
    except CommandFileError as error:
        return str(error)
    except FrontMatterError as error:
        return f"{quoted(file.shown)}: {error}; skipped"
