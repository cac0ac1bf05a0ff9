"""The one table of built-in slash commands: every row has the handlers it promises in both front
ends, no handler is without a row, and custom commands cannot take a built-in's name."""

from __future__ import annotations

from agent.commands.builtin import BUILTIN, BUILTIN_NAMES, HEADLESS_NAMES
from agent.commands.builtin_prompts import PROMPTS
from agent.commands.catalog import BUILTIN_COMMANDS
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


def test_custom_commands_never_take_a_builtins_name_and_help_lists_each_row() -> None:
    assert BUILTIN_COMMANDS == BUILTIN_NAMES
    shown = help_text()
    assert all(f"- `{command.usage}`: {command.help}" in shown for command in BUILTIN)
