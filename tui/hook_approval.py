"""A project's Claude Code hooks in the TUI: asked about once the session is open (never before
the first frame), used from then on when allowed; what was left out of the hooks, as notices."""

from __future__ import annotations

import asyncio

from tui.host import Host


async def start(host: Host) -> None:
    """Say what the hooks' sources left out, then ask about each project settings file whose
    hooks were never approved in this content (agent/hooks/claude_settings.py). Once per run."""
    from agent.hooks.claude_settings import approve
    from agent.session.project_questions import hooks_question

    controller = host.controller
    if controller is None:
        return
    hooks = controller.hooks
    notes, hooks.notes = [*host.startup.notes, *hooks.notes], []
    for note in notes:
        await host.conversation.add_notice(note, "error")
    waiting, controller.hooks_waiting = controller.hooks_waiting, ()
    for found in waiting:
        if not await host.approvals.asking.approve_project(hooks_question(found)):
            line = f"{found.label}'s hooks do not run; asked again next time"
            await host.conversation.add_notice(line)
            continue
        hooks.add(found.specs)
        if host.agent is not None:  # a SessionStart among them runs before the next prompt
            host.agent.hooks.hooks_added()
        try:
            await asyncio.to_thread(approve, found)
        except OSError as error:  # used now all the same; asked again next time
            await host.conversation.add_notice(f"cannot remember the approval: {error}", "error")
    from tui.plugins import ask_approvals

    await ask_approvals(host)  # the plugins' hooks and servers, after the project's
    if (idle := hooks.idle_note()) is not None:
        await host.conversation.add_notice(idle)
