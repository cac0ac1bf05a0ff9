"""A command file's prompt, expanded the same way for every front end: its text, the meta its user
message keeps (the line as typed, the command's file), where its images come from, its notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent.slash.context import Refused

if TYPE_CHECKING:
    from agent.commands.catalog import CustomCommand
    from agent.turn.loop import Agent


@dataclass(frozen=True)
class CustomPrompt:
    """What a custom command (or a built-in prompt: /init, /review) sends, the meta its user
    message keeps, and the text its images are attached from (Expanded.images_from); `said`
    names where it came from, `notes` what the user should know about it."""

    text: str
    meta: dict[str, str]
    images: str
    said: str = ""
    notes: tuple[str, ...] = field(default=())


def expand_command(
    agent: Agent, command: CustomCommand, typed: str, arguments: str
) -> CustomPrompt:
    """The prompt `command` expands to with `arguments` (`typed`: the whole line). Raises
    Refused when it cannot be expanded (a missing argument, an include refused ...)."""
    from agent.commands.expansion import ExpansionError, expand_for
    from sessions.messages import SOURCE_KEY, TYPED_KEY

    try:
        expanded = expand_for(agent, command, arguments)
    except ExpansionError as error:
        raise Refused(str(error)) from error
    meta = {TYPED_KEY: typed.strip(), SOURCE_KEY: command.shown}
    said = f"the {command.scope} command in {command.shown}"
    return CustomPrompt(expanded.text, meta, expanded.images_from, said, expanded.notes)
