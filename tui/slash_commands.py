"""The built-in slash commands in the TUI: which command a typed line names
(agent/commands/resolution.py decides between a command file and a built-in), running one (its
row in agent/commands/builtin.py names its body in agent/slash/, which every front end runs the
same way), and the /help text."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.commands.builtin import BUILTIN_NAMESPACE, BY_NAME, NAMESPACE_MARK, Builtin
from tui.host import Host

if TYPE_CHECKING:
    from agent.commands.catalog import CustomCommand
    from agent.events import CommandOutput, Notice

# A typed slash command: its name, then (after whitespace, a newline too) its argument.
TYPED = re.compile(r"/(\S*)\s*(.*)", re.DOTALL)
# What a prompt `# note` runs: /memory's built-in, whatever command files exist.
MEMORY_NOTE = f"{BUILTIN_NAMESPACE}{NAMESPACE_MARK}memory"
__all__ = ["BY_NAME", "parse", "resolve", "run"]


def parse(text: str) -> tuple[str, str] | None:
    """(name, argument) of a slash command as typed, None when the text is a prompt (no slash,
    or a path such as /etc/hosts). A `# note` is /memory's built-in: it adds the note, after
    asking. Which command the name runs is resolve()'s."""
    if text.startswith("#"):
        return MEMORY_NOTE, text
    typed = TYPED.fullmatch(text)
    if typed is None or not typed.group(1) or "/" in typed.group(1):
        return None
    return typed.group(1), typed.group(2).strip()


async def resolve(host: Host, name: str) -> Builtin | CustomCommand | None:
    """What `/name` runs (agent/commands/resolution.py): the command files are read again first
    unless the name always runs a built-in (`/pleat:review`, `/help`, `/quit`)."""
    from agent.commands.resolution import fixed_builtin
    from agent.commands.resolution import resolve as resolve_name
    from tui.command_catalog import refresh

    fixed = fixed_builtin(name)
    if fixed is not None:
        return fixed
    return resolve_name(name, await refresh(host))


async def run(host: Host, command: Builtin, arg: str) -> None:
    """Run one command's body (agent/slash/dispatch.py, as every front end does) and show what it
    says; a fold or a turn it starts goes on as the app's work (Esc cancels it). The app runs a
    command that changes the conversation only when nothing else runs (PleatApp.run_slash)."""
    from agent.events import CommandOutput, CompactionStarted, Notice
    from agent.slash.context import CommandContext
    from agent.slash.dispatch import run_builtin
    from tui.command_front import TerminalFront

    spelled = command.qualified if _shadowed(host, command) else f"/{command.name}"
    ctx = CommandContext(
        host.workspace,
        TerminalFront(host),
        host.agent,
        host.session,
        host.controller,
        typed=f"{spelled} {arg}".rstrip(),
    )
    events = run_builtin(ctx, command, arg)
    try:
        async for event in events:
            if isinstance(event, CommandOutput | Notice):
                await _say(host, event)
            else:  # the rest is the app's work, shown as a turn's
                from tui.tasks import run_command_work

                host.start_work(
                    "compact" if isinstance(event, CompactionStarted) else "turn",
                    run_command_work(host, ctx.typed, event, events),
                )
                return
    except Exception as error:  # a bug: one red line, the log has the rest
        host.log.error(error)
        await host.conversation.add_notice(
            f"/{command.name} failed: {type(error).__name__}: {error}", "error"
        )
    if host.agent is not None:
        host.status.goal = host.agent.goal or ""


def _shadowed(host: Host, command: Builtin) -> bool:
    files = host.custom_commands
    return bool(files and files.get(command.name))


async def _say(host: Host, event: CommandOutput | Notice) -> None:
    from agent.events import CommandOutput

    if isinstance(event, CommandOutput) and event.diff:  # as the tool calls' diff block
        from agent.conversation.entries import ToolEntry

        await host.conversation.add(ToolEntry(event.title, result=event.listed, diff=event.diff))
    elif isinstance(event, CommandOutput):
        await host.conversation.add_notice(event.text, "error" if event.failed else "note")
    else:
        await host.conversation.add_notice(event.message, event.level)
