"""Where custom command files are, and finding them safely: every file is treated as hostile.

A project's command files come with the repository (a clone of someone else's included), so a
name, a size, a link or a file type is never trusted: files are found with limits (entries
read, levels of subdirectories, bytes), a project's files must stay inside the workspace (a
link out is skipped), only regular files are read (never a pipe, which would block, or a
device), and a name outside a safe set of characters is skipped with a one-line note.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent.config import config_path
from sessions.short_text import quoted
from tools.paths import workspace_root
from tools.workspace_text import read_workspace_text

# Project commands come with the workspace; user commands from the user's own directories;
# plugin commands from an installed plugin (agent/plugins/), confined to its directory.
Scope = Literal["project", "user", "plugin"]
# The files' extension: Claude Code's command files are markdown.
EXTENSION = ".md"
# One part of a command's name (a file name without .md, or a subdirectory's name): letters,
# digits, "-", "_" and "." (not first), so a name is typed and shown as it is, and never holds a
# control character, a space or a quote. 64 characters is longer than any command worth typing.
NAME_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Between a subdirectory and a name, as Claude Code writes it: frontend/component.md is
# /frontend:component.
NAMESPACE_SEPARATOR = ":"
# Levels of subdirectories read below a commands directory: namespaces are one level in
# practice; three leave room, and a bound stops a link loop or a deep hostile tree.
MAX_DEPTH = 3
# Directory entries looked at per commands directory: a real setup has tens of commands; a
# directory of thousands (or a hostile one of millions) is read only this far, with a note.
MAX_ENTRIES = 1_000
# Bytes of one command file: a prompt this long is already some 16k tokens sent on every use;
# a larger file is skipped (cutting a prompt could change what it asks).
MAX_COMMAND_BYTES = 64_000
# Claude Code's own configuration directory, when set (else ~/.claude).
CLAUDE_CONFIG_ENV = "CLAUDE_CONFIG_DIR"


class CommandFileError(Exception):
    """A command file that cannot be used; the message is one line naming it."""


@dataclass(frozen=True)
class CommandSource:
    """One directory of command files: its scope, how it is named to the user, (for a
    project's or a plugin's directory) the directory its files must stay inside, and (for a
    plugin's) the namespace its commands are named in: `/plugin:command`."""

    directory: Path
    scope: Scope
    shown: str
    workspace: Path | None = None
    namespace: str | None = None


@dataclass(frozen=True)
class CommandFile:
    """A command file found: its command name, where it is, and a stamp that changes when the
    file does (inode, size, modification and change times)."""

    name: str
    path: Path
    source: CommandSource
    shown: str
    stamp: tuple[int, int, int, int]


@dataclass
class Listing:
    """The command files of one directory, and a note for each thing skipped."""

    files: list[CommandFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    entries: int = 0  # directory entries looked at, against MAX_ENTRIES
    full: bool = False  # MAX_ENTRIES reached: nothing more is looked at


def _home_shown(path: Path) -> str:
    """A path as the user thinks of it: ~ for the home directory."""
    try:
        return f"~/{path.relative_to(Path.home()).as_posix()}"
    except ValueError:
        return str(path)


def command_sources(workspace: Path) -> tuple[CommandSource, ...]:
    """The directories read, first wins for a name: the project's .pleat/commands and
    .claude/commands, then the user's (next to config.toml) and Claude Code's ~/.claude/commands."""
    root = workspace_root(workspace)
    user = config_path().parent / "commands"
    claude_home = os.environ.get(CLAUDE_CONFIG_ENV)
    claude = Path(claude_home).expanduser() if claude_home else Path.home() / ".claude"
    return (
        CommandSource(root / ".pleat" / "commands", "project", ".pleat/commands", root),
        CommandSource(root / ".claude" / "commands", "project", ".claude/commands", root),
        CommandSource(user, "user", _home_shown(user)),
        CommandSource(claude / "commands", "user", _home_shown(claude / "commands")),
    )


def _inside(source: CommandSource, path: Path) -> bool:
    """A user's files may lead anywhere (they are the user's own); a project's must stay in
    the workspace."""
    if source.workspace is None:
        return True
    return Path(os.path.realpath(path)).is_relative_to(source.workspace)


def list_command_files(source: CommandSource) -> Listing:
    """The command files under `source`, with a note for each one skipped (a name, a link
    out, a file that is not regular or too large, a tree too deep or too large)."""
    listing = Listing()
    directory = source.directory
    try:
        if not directory.is_dir():
            return listing
    except OSError:
        return listing
    if not _inside(source, directory):
        listing.notes.append(f"{source.shown} leads outside the workspace; its commands not read")
        return listing
    _walk(source, directory, (), listing)
    listing.files.sort(key=lambda f: f.name)
    return listing


def _walk(source: CommandSource, directory: Path, prefix: tuple[str, ...], out: Listing) -> None:
    shown_dir = "/".join((source.shown, *prefix))
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if out.entries >= MAX_ENTRIES:
                    if not out.full:
                        out.full = True
                        out.notes.append(
                            f"{source.shown} has more than {MAX_ENTRIES:,} entries; the rest "
                            "are not read"
                        )
                    return
                out.entries += 1
                _visit(source, entry, prefix, out)
    except OSError as error:
        out.notes.append(f"{shown_dir}: cannot be listed ({error.strerror or error})")


def _visit(
    source: CommandSource, entry: os.DirEntry[str], prefix: tuple[str, ...], out: Listing
) -> None:
    """One directory entry: a subdirectory to walk, a command file, or something to skip."""
    name = entry.name
    if name.startswith("."):  # hidden files: editors' swap files, .DS_Store
        return
    shown = "/".join((source.shown, *prefix, name))
    try:
        is_dir = entry.is_dir()
    except OSError:
        is_dir = False
    if is_dir:
        if len(prefix) >= MAX_DEPTH:
            out.notes.append(f"{quoted(shown)} is more than {MAX_DEPTH} levels deep; not read")
        elif NAME_PART.fullmatch(name) is None:
            out.notes.append(f"{quoted(shown)}: {_name_rule()}; not read")
        elif not _inside(source, Path(entry.path)):
            out.notes.append(f"{quoted(shown)} leads outside the workspace; not read")
        else:
            _walk(source, Path(entry.path), (*prefix, name), out)
        return
    if not name.endswith(EXTENSION):
        return  # a README.txt or a script beside the commands: not a command
    stem = name[: -len(EXTENSION)]
    if NAME_PART.fullmatch(stem) is None:
        out.notes.append(f"{quoted(shown)}: {_name_rule()}; skipped")
        return
    problem, stamp = _check_file(source, Path(entry.path))
    if problem is not None:
        out.notes.append(f"{quoted(shown)} {problem}; skipped")
        return
    namespace = (source.namespace,) if source.namespace else ()
    command = NAMESPACE_SEPARATOR.join((*namespace, *prefix, stem))
    out.files.append(CommandFile(command, Path(entry.path), source, shown, stamp))


def _name_rule() -> str:
    return 'a command name takes letters, digits, "-", "_" and "." (at most 64)'


def _check_file(source: CommandSource, path: Path) -> tuple[str | None, tuple[int, int, int, int]]:
    """Why the file cannot be a command (None when it can), and its stamp."""
    try:
        info = os.stat(path)
    except OSError as error:
        return f"cannot be read ({error.strerror or error})", (0, 0, 0, 0)
    stamp = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file", stamp
    if info.st_size > MAX_COMMAND_BYTES:
        return f"is larger than {MAX_COMMAND_BYTES:,} bytes", stamp
    if not _inside(source, path):
        return "leads outside the workspace", stamp
    return None, stamp


def read_command_file(file: CommandFile) -> str:
    """The file's text (invalid UTF-8 replaced); CommandFileError when it cannot be used."""
    if file.source.workspace is not None:
        found = read_workspace_text(file.source.workspace, file.path, MAX_COMMAND_BYTES)
        if found.skipped is not None:
            raise CommandFileError(f"{quoted(file.shown)}: {found.skipped}")
        if found.text is None:
            raise CommandFileError(f"{quoted(file.shown)} is gone")
        if found.cut:
            raise CommandFileError(
                f"{quoted(file.shown)} is larger than {MAX_COMMAND_BYTES:,} bytes; skipped"
            )
        return found.text
    return _read_user_file(file)


def _read_user_file(file: CommandFile) -> str:
    """A user's command file: opened without blocking (a pipe would wait forever), read only
    when regular, and only up to the cap."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(file.path, flags)
    except OSError as error:
        raise CommandFileError(
            f"{quoted(file.shown)} cannot be read ({error.strerror or error})"
        ) from error
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CommandFileError(f"{quoted(file.shown)} is not a regular file; skipped")
        chunks: list[bytes] = []
        left = MAX_COMMAND_BYTES + 1  # one byte more than the cap tells a longer file
        while left > 0 and (chunk := os.read(fd, left)):
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as error:
        raise CommandFileError(
            f"{quoted(file.shown)} cannot be read ({error.strerror or error})"
        ) from error
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_COMMAND_BYTES:
        raise CommandFileError(
            f"{quoted(file.shown)} is larger than {MAX_COMMAND_BYTES:,} bytes; skipped"
        )
    return data.decode("utf-8", errors="replace")
