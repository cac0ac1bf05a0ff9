"""A built-in slash command in a headless run (`pleat -p "/undo" --continue`): its body
(agent/slash/) run like in every front end, its events to the run's report, its answer on stdout,
its notices and errors on stderr, and its outcome as the exit code."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from agent.events import CommandOutput, HookNotice, Notice
from agent.headless.exit_codes import EXIT_CONFIG, EXIT_FAILED, EXIT_KEPT, EXIT_OK
from agent.headless.json_report import Reporter
from agent.slash.context import CommandContext, Outcome
from agent.slash.dispatch import run_builtin
from agent.slash.no_screens import NoScreens
from agent.turn.loop import Agent
from sessions.store import Session

# The exit code of each way a command ends.
EXIT_OF: dict[Outcome, int] = {
    "done": EXIT_OK,
    "refused": EXIT_CONFIG,
    "failed": EXIT_FAILED,
    "partial": EXIT_KEPT,
}


async def run_command(
    agent: Agent,
    session: Session,
    command_name: str,
    arg: str,
    report: Reporter,
    out: TextIO,
    err: TextIO,
    *,
    typed: str = "",
) -> int:
    """Run the built-in `command_name` with `arg`: `out` takes its answer (the report's), `err`
    its lines, the report its fold's events (of their lines, a hook's are said). pleat's built-in
    prompts (/init, /review) are requests: agent/headless/custom.py sends them as one."""
    from agent.commands.builtin import BY_NAME

    command = BY_NAME[command_name]
    ctx = CommandContext(Path(agent.context.workspace), NoScreens(), agent, session, typed=typed)
    async for event in run_builtin(ctx, command, arg):
        if isinstance(event, CommandOutput):
            if event.failed:
                err.write(f"pleat: error: {event.text}\n")
            else:
                out.write(event.text + "\n")
        elif isinstance(event, Notice):
            err.write(f"pleat: {event.message}\n")
        else:
            report.event(event, progress=isinstance(event, HookNotice))
    return EXIT_OF[ctx.outcome]
