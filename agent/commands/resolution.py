"""Which command a typed `/NAME` runs, a command file or a built-in: the one place both front ends
(tui/slash_commands.py, agent/headless/custom.py) and their listings (/help, the / list, the
palette, the headless init line) ask.

A command file of a built-in's name wins: it is what the user (or the project) wrote, and a
built-in that appears in a later pleat must not take a name someone's file already had. The
built-in stays reachable as `/pleat:NAME` (agent/commands/builtin.py), which every built-in
answers to whatever files exist, so a script can always name pleat's own. `/help` and `/quit`
are never shadowed (the catalog skips such a file with a note).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.commands.builtin import BUILTIN, BUILTIN_NAMESPACE, BY_NAME, NAMESPACE_MARK, Builtin
from agent.commands.catalog import CommandCatalog, CustomCommand

# How a typed name asks for pleat's built-in whatever the files say: `pleat:review`.
QUALIFIER = f"{BUILTIN_NAMESPACE}{NAMESPACE_MARK}"

Command = Builtin | CustomCommand


def fixed_builtin(name: str) -> Builtin | None:
    """The built-in `name` (without the slash) runs whatever command files exist: any built-in
    as `pleat:NAME`, and one that cannot be shadowed (`help`, `quit`) as itself; None when the
    files decide. A front end needs no catalog for these."""
    if name.startswith(QUALIFIER):
        return BY_NAME.get(name[len(QUALIFIER) :])
    found = BY_NAME.get(name)
    return found if found is not None and not found.shadowable else None


def resolve(name: str, catalog: CommandCatalog | None) -> Command | None:
    """What `/name` runs: a fixed built-in, else the command file of that name (`catalog` as
    last refreshed; None: no files read), else the built-in of that name; None when nothing is
    called so."""
    fixed = fixed_builtin(name)
    if fixed is not None:
        return fixed
    custom = catalog.get(name) if catalog is not None else None
    return custom if custom is not None else BY_NAME.get(name)


def shadowed_by(command: CustomCommand) -> Builtin | None:
    """The built-in whose bare name this command file takes (it is then `/pleat:NAME`)."""
    found = BY_NAME.get(command.name)
    return found if found is not None and found.shadowable else None


@dataclass(frozen=True)
class Listed:
    """One command as /help, the / list and the palette show it: what to type (without the
    slash), and what it shares its name with ("" when nothing)."""

    command: Command
    typed: str
    note: str

    @property
    def usage(self) -> str:
        hint = (
            self.command.args if isinstance(self.command, Builtin) else self.command.argument_hint
        )
        return f"/{self.typed} {hint}".rstrip()


def listing(commands: Sequence[CustomCommand]) -> list[Listed]:
    """Every command, the built-ins first (a shadowed one under `/pleat:NAME`, saying which file
    has its name), then the command files (one with a built-in's name saying how the built-in
    is reached)."""
    files = {command.name: command for command in commands}
    rows: list[Listed] = []
    for builtin in BUILTIN:
        file = files.get(builtin.name) if builtin.shadowable else None
        if file is None:
            rows.append(Listed(builtin, builtin.name, ""))
        else:
            note = f"/{builtin.name} runs the {file.scope} command {file.shown}"
            rows.append(Listed(builtin, builtin.qualified.removeprefix("/"), note))
    for command in commands:
        shadowed = shadowed_by(command)
        note = f"the built-in is {shadowed.qualified}" if shadowed is not None else ""
        rows.append(Listed(command, command.name, note))
    return rows
