"""The one table of built-in slash commands: every row names a body that exists, every body in
agent/slash/ has a row, and the names a command file cannot take."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import agent.slash
from agent.commands.builtin import BUILTIN, BUILTIN_NAMES, RESERVED_NAMES
from agent.commands.catalog import RESERVED_COMMANDS
from agent.slash.dispatch import body_of
from tui.command_help import help_text


def test_every_row_has_a_body_and_every_body_a_row() -> None:
    named = {command.body for command in BUILTIN}
    assert all(inspect.isasyncgenfunction(body_of(command)) for command in BUILTIN)
    # Every public async generator taking (ctx, arg) in agent/slash/ is some row's body.
    found = set()
    for info in pkgutil.iter_modules(agent.slash.__path__):
        module = importlib.import_module(f"agent.slash.{info.name}")
        for name, value in vars(module).items():
            if (
                inspect.isasyncgenfunction(value)
                and value.__module__ == module.__name__
                and not name.startswith("_")
                and list(inspect.signature(value).parameters)[:1] == ["ctx"]
                and len(inspect.signature(value).parameters) == 2
            ):
                found.add(f"{module.__name__}.{name}")
    assert found == named
    assert len(BUILTIN_NAMES) == len(BUILTIN)  # no name twice


def test_files_never_take_help_quit_or_a_pleat_spelling_and_help_lists_each_row() -> None:
    assert RESERVED_COMMANDS == RESERVED_NAMES
    assert {c.name for c in BUILTIN if not c.shadowable} == {"help", "quit"}
    assert RESERVED_NAMES == {"help", "quit"} | {f"pleat:{name}" for name in BUILTIN_NAMES}
    shown = help_text()
    assert all(f"- `{command.usage}`: {command.help}" in shown for command in BUILTIN)
