"""Running pleat's built-in prompts in the TUI (/init, /review: agent/commands/builtin_prompts.py):
a turn that shows what was typed, the request itself in a collapsed block."""

from __future__ import annotations

import asyncio

from tui.host import BUSY, Host


async def run_prompt(host: Host, name: str, focus: str) -> None:
    """/name [focus]: its request as a turn, or one red line when it has nothing to work on."""
    from agent.commands.builtin import BY_NAME
    from agent.commands.builtin_prompts import PROMPTS, PromptRefused
    from tui.tasks import run_turn

    agent = host.agent
    assert agent is not None  # the row needs an agent (tui/slash_commands.run)
    # Kept as typed (/undo gives it back): /pleat:review when a command file has the bare name.
    files = host.custom_commands
    spelled = BY_NAME[name].qualified if files and files.get(name) else f"/{name}"
    typed = f"{spelled} {focus}".rstrip()
    try:  # /review runs git: off the event loop
        built = await asyncio.to_thread(PROMPTS[name], agent.context.workspace, typed, focus)
    except PromptRefused as error:
        await host.conversation.add_notice(str(error), "error")
        return
    if host.working:  # a turn started while git ran
        host.notify(BUSY)
        return
    host.start_work("turn", run_turn(host, agent, built.text, built.meta, typed))
