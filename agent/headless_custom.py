"""`pleat -p "/review src/app.py"`: a custom command's prompt, expanded for a headless turn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

from agent.command_expansion import expand_for
from agent.custom_commands import SOURCE_KEY, TYPED_KEY, CommandCatalog, invocation
from agent.loop import Agent


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
    Raises ExpansionError when the command cannot be expanded."""
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
    expanded = expand_for(agent, command, arguments)
    err.write(f"pleat: /{name}: the {command.scope} command in {command.shown}\n")
    for note in expanded.notes:
        err.write(f"pleat: note: /{name}: {note}\n")
    meta = {TYPED_KEY: prompt.strip(), SOURCE_KEY: command.shown}
    return CustomPrompt(expanded.text, meta, expanded.images_from)
