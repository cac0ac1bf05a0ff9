"""The one table of built-in slash commands: every row has the handlers it promises in both front
ends, no handler is without a row, and the names a command file cannot take."""

from __future__ import annotations

from agent.commands.builtin import BUILTIN, BUILTIN_NAMES, HEADLESS_NAMES, RESERVED_NAMES
from agent.commands.builtin_prompts import PROMPTS
from agent.commands.catalog import RESERVED_COMMANDS
from agent.headless.commands import HEADLESS_COMMANDS
from tui.slash_commands import HANDLERS, help_text


def test_every_row_has_its_handlers_and_every_handler_a_row() -> None:
    assert set(HANDLERS) == {command.name for command in BUILTIN}  # the TUI runs them all
    # A headless run takes a built-in prompt (/init, /review) as the turn it expands to
    # (agent/headless/custom.py), the other headless rows through their handlers.
    prompts = {f"/{name}" for name in PROMPTS}
    assert not prompts & set(HEADLESS_COMMANDS)
    assert set(HEADLESS_COMMANDS) | prompts == {f"/{name}" for name in HEADLESS_NAMES}
    assert len(BUILTIN_NAMES) == len(BUILTIN)  # no name twice


def test_files_never_take_help_quit_or_a_pleat_spelling_and_help_lists_each_row() -> None:
    assert RESERVED_COMMANDS == RESERVED_NAMES
    assert {c.name for c in BUILTIN if not c.shadowable} == {"help", "quit"}
    assert RESERVED_NAMES == {"help", "quit"} | {f"pleat:{name}" for name in BUILTIN_NAMES}
    shown = help_text()
    assert all(f"- `{command.usage}`: {command.help}" in shown for command in BUILTIN)
