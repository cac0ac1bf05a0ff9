"""Background commands in the TUI: /shells lists them, Ctrl+B sends the running command there."""

from __future__ import annotations

from agent.terminal_text import visible
from tools.background_tools import background_of
from tools.errors import ToolError
from tui.host import Host

# Characters of a command line shown in /shells' list: a long one is cut (its whole text is in
# the conversation, in the run_command call that started it).
COMMAND_CHARS = 120


def shells_text(host: Host) -> str:
    """The session's background commands, running and ended, with their output files."""
    background = background_of(host.agent.registry) if host.agent is not None else None
    commands = background.all() if background is not None else []
    if not commands:
        return "No background commands in this session."
    lines = ["Background commands (command_output reads one, command_stop stops it):"]
    for job in commands:
        command = " ".join(visible(job.command).split())
        if len(command) > COMMAND_CHARS:
            command = command[: COMMAND_CHARS - 1] + "…"
        lines.append(f"  {job.id}  {job.state()}  {command}")
        lines.append(f"      output: {visible(str(job.path))}")
    return "\n".join(lines)


async def shells(host: Host, _: str) -> None:
    """/shells: the list, as a notice."""
    await host.conversation.add_notice(shells_text(host))


def send_to_background(host: Host) -> str:
    """Ctrl+B: the running foreground command goes to the background (its call answers at once
    with its id); what to tell the user."""
    background = background_of(host.agent.registry) if host.agent is not None else None
    if background is None:
        return "No command is running."
    try:
        sent = background.send_foreground_to_background()
    except ToolError as error:
        return str(error)
    if not sent:
        return "No command is running."
    return "The command went to the background (/shells lists it)."
