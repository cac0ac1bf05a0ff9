"""`pleat -p "/review src/app.py"`: a custom command's prompt, expanded for a headless turn.

The command machinery is imported only for a prompt that starts with a slash: an ordinary
prompt (and the TUI, which imports agent.headless) does not pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from agent.loop import Agent


class CommandRefused(Exception):
    """The custom command cannot be expanded; the message is one line."""


@dataclass(frozen=True)
class CustomPrompt:
    """What a custom command sends, the meta its user message keeps (what was typed, the
    command's file), and the text its images are attached from (Expanded.images_from)."""

    text: str
    meta: dict[str, str]
    images: str


def custom_prompt(agent: Agent, prompt: str, err: TextIO) -> CustomPrompt | None:
    """The prompt a custom command expands to, said on `err` with its notes; None when the
    prompt names no custom command (it is then sent as written, as before custom commands).
    Raises CommandRefused when the command cannot be expanded."""
    if not prompt.lstrip().startswith("/"):
        return None
    from agent.command_expansion import ExpansionError, expand_for
    from agent.custom_commands import CommandCatalog, invocation
    from sessions.messages import SOURCE_KEY, TYPED_KEY

    found = invocation(prompt)
    if found is None:
        return None
    name, arguments = found
    catalog = CommandCatalog(agent.context.workspace)
    catalog.refresh()
    for note in catalog.new_notes():
        err.write(f"pleat: note: {note}\n")
    command = catalog.get(name)
    if command is None:
        what = "works in the TUI only" if name in catalog.builtins else "is not a command"
        err.write(f"pleat: note: /{name} {what}; sent to the model as written\n")
        return None
    try:
        expanded = expand_for(agent, command, arguments)
    except ExpansionError as error:
        raise CommandRefused(str(error)) from error
    err.write(f"pleat: /{name}: the {command.scope} command in {command.shown}\n")
    for note in expanded.notes:
        err.write(f"pleat: note: /{name}: {note}\n")
    meta = {TYPED_KEY: prompt.strip(), SOURCE_KEY: command.shown}
    return CustomPrompt(expanded.text, meta, expanded.images_from)
