"""`pleat -p "/fix-issue 123"`: a custom command's prompt, expanded for a headless turn (and
`pleat -p "/help"`, a command of the TUI only, refused); pleat's built-in prompts (/init,
/review) are expanded here too.

The command machinery is imported only for a prompt that starts with a slash: an ordinary
prompt (and the TUI, which imports agent.headless.run) does not pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.commands.files import CommandSource
    from agent.turn.loop import Agent


def tui_only_refusal(prompt: str) -> str | None:
    """The one line refusing a prompt that names a built-in slash command a headless run does not
    take (`/help`, `/model`, `/quit` ...: agent/commands/builtin.py): sent to the model it would
    be a wasted, puzzling request. None otherwise."""
    if not prompt.lstrip().startswith("/"):
        return None
    from agent.commands.builtin import BY_NAME, HEADLESS_NAMES
    from agent.commands.catalog import invocation

    found = invocation(prompt)
    command = BY_NAME.get(found[0]) if found is not None else None
    if command is None or command.headless:
        return None
    takes = ", ".join(f"/{name}" for name in sorted(HEADLESS_NAMES))
    return (
        f"/{command.name} works in pleat's terminal UI only; a headless run takes {takes} and "
        "custom commands (options: pleat --help)"
    )


class CommandRefused(Exception):
    """The custom command cannot be expanded; the message is one line."""


@dataclass(frozen=True)
class CustomPrompt:
    """What a custom command sends, the meta its user message keeps (what was typed, the
    command's file), and the text its images are attached from (Expanded.images_from)."""

    text: str
    meta: dict[str, str]
    images: str


def custom_prompt(
    agent: Agent, prompt: str, err: TextIO, plugin_sources: Sequence[CommandSource] = ()
) -> CustomPrompt | None:
    """The prompt a custom command (a file's, or an enabled plugin's: `plugin_sources`) expands
    to, said on `err` with its notes; None when the prompt names no custom command (it is then
    sent as written, as before custom commands). Raises CommandRefused when the command cannot
    be expanded."""
    if not prompt.lstrip().startswith("/"):
        return None
    from agent.commands.builtin_prompts import PROMPTS
    from agent.commands.catalog import CommandCatalog, invocation
    from agent.commands.expansion import ExpansionError, expand_for
    from sessions.messages import SOURCE_KEY, TYPED_KEY

    found = invocation(prompt)
    if found is None:
        return None
    name, arguments = found
    if name in PROMPTS:  # /init, /review: pleat's own (agent/commands/builtin_prompts.py)
        return builtin_prompt(agent, name, prompt.strip(), arguments, err)
    catalog = CommandCatalog(agent.context.workspace, plugin_sources=plugin_sources)
    catalog.refresh()
    for note in catalog.new_notes():
        err.write(f"pleat: note: {note}\n")
    command = catalog.get(name)
    if command is None:  # a TUI-only built-in was refused before (tui_only_refusal)
        err.write(f"pleat: note: /{name} is not a command; sent to the model as written\n")
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


def builtin_prompt(agent: Agent, name: str, typed: str, focus: str, err: TextIO) -> CustomPrompt:
    """The request of a built-in prompt (/init, /review), said on `err`; raises CommandRefused
    when it has nothing to work on (/review outside a repository, or with nothing changed)."""
    from agent.commands.builtin_prompts import PROMPTS, PromptRefused
    from agent.permissions.policy import READ_ONLY_KEY

    try:
        built = PROMPTS[name](agent.context.workspace, typed, focus)
    except PromptRefused as error:
        raise CommandRefused(str(error)) from error
    only_reads = " (this request only reads: writes and commands are refused)"
    reading = only_reads if READ_ONLY_KEY in built.meta else ""
    err.write(f"pleat: /{name}: pleat's built-in prompt{reading}\n")
    return CustomPrompt(built.text, built.meta, typed)
