"""Running a custom slash command in the TUI: a turn that shows what was typed (the model gets the
expanded prompt); the catalog they are read from is tui/command_catalog.py's."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui import queued
from tui.host import BUSY, Host

if TYPE_CHECKING:
    from agent.commands.catalog import CustomCommand

# The expansion is imported when a custom command is run, never before the first frame.


async def submitted(host: Host, text: str, command: CustomCommand | None) -> None:
    """`/name args` that runs no built-in (tui/slash_commands.resolve): the command file's
    turn (`command`), or an error when nothing is called so."""
    from agent.commands.catalog import invocation
    from agent.commands.expansion import ExpansionError, expand_for
    from agent.turn.prompt_queue import joined
    from sessions.messages import SOURCE_KEY, TYPED_KEY

    found = invocation(text)
    if found is None or command is None:
        name = text[1:].split(maxsplit=1)[0] if text[1:].strip() else ""
        await host.conversation.add_notice(f"unknown command /{name} (see /help)", "error")
        return
    agent = host.agent
    if agent is None:
        await host.conversation.add_user(text)
        await host.conversation.add_markdown(host.unavailable or "", "help")
        return
    if host.busy:  # like the built-ins: a queued prompt is read mid-turn, without its images
        host.notify(BUSY)
        return
    try:
        expanded = await asyncio.to_thread(expand_for, agent, command, found[1])
    except ExpansionError as error:
        await host.conversation.add_notice(str(error), "error")
        return
    for note in expanded.notes:
        await host.conversation.add_notice(f"/{command.name}: {note}")
    if host.busy:  # it started while the files were read
        host.notify(BUSY)
        return
    from tui.tasks import run_turn

    meta = {TYPED_KEY: text, SOURCE_KEY: command.shown}
    waiting = agent.queued.take_all()  # prompts left queued by the last turn go first
    queued.show(host)
    prompt = joined([*waiting, expanded.text])
    images = joined([*waiting, expanded.images_from])
    host.start_work("turn", run_turn(host, agent, prompt, meta, images))
