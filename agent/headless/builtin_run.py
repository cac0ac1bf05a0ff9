"""A built-in slash command in a headless run (`pleat -p "/undo" --continue`): its body
(agent/slash/) run like in every front end, its events to the run's report, its answer on stdout,
its notices and errors on stderr, and its outcome as the exit code."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from agent.events import CommandOutput, HookNotice, Notice
from agent.headless.exit_codes import EXIT_CONFIG, EXIT_FAILED, EXIT_KEPT, EXIT_OK
from agent.headless.json_report import Reporter
from agent.slash.context import CommandContext, NotHere, Outcome, Replaced, RewindChoice
from agent.slash.dispatch import run_builtin
from agent.turn.loop import Agent
from sessions.lineage import Turn
from sessions.store import Session

# The exit code of each way a command ends.
EXIT_OF: dict[Outcome, int] = {
    "done": EXIT_OK,
    "refused": EXIT_CONFIG,
    "failed": EXIT_FAILED,
    "partial": EXIT_KEPT,
}


@dataclass
class NoScreens:
    """A front end with nobody to ask and nothing to show: the bodies list instead of picking,
    keep the user's files, and print a --preview summary."""

    interactive: bool = False

    async def review_summary(self, summary: str) -> str | None:
        raise NotHere

    async def pick_turn(self, turns: list[Turn]) -> RewindChoice | None:
        raise NotHere

    async def overwrite(self, conflicts: list[str]) -> list[str] | None:
        return []  # never the user's changes

    async def history_replaced(
        self, source: Replaced, request: str | None = None, notes: object = ()
    ) -> list[str]:
        return []

    async def pick_session(self) -> str | None:
        raise NotHere

    async def show(self, what: str, arg: str) -> None:
        raise NotHere

    def copy(self, text: str) -> None:
        raise NotHere

    def quit(self) -> None:
        raise NotHere


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
