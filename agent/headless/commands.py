"""The built-in slash commands a headless run takes (`pleat -p "/undo" --continue`), by name."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TextIO

from agent.compaction.fold_line import describe_compaction
from agent.conversation.fork import ForkRefused, fork_session
from agent.events import CompactionDone, CompactionFailed, Event, HookNotice
from agent.headless.exit_codes import EXIT_CONFIG, EXIT_FAILED, EXIT_OK
from agent.headless.json_report import Reporter
from agent.headless.mcp import run_mcp
from agent.headless.memory import run_memory
from agent.headless.progress import say_progress
from agent.headless.rewind import run_rewind, run_undo
from agent.headless.skills import run_skills
from agent.headless.take_away import TAKE_AWAY_COMMANDS
from agent.permissions.sandbox_report import sandbox_report
from agent.turn.folds import compact_argument
from agent.turn.loop import Agent
from sessions.store import Session


async def run_compact(
    agent: Agent,
    session: Session,
    focus: str,
    out: TextIO,
    err: TextIO,
    report: Reporter | None = None,
) -> int:
    """`pleat -p "/compact [--preview] [focus]"`: fold now and say what happened on `out` (the
    `report` counts the fold and its call; of its lines, a hook's are said). With --preview,
    nobody is there to accept the summary: it is printed, and nothing is applied."""
    preview, focus_text = compact_argument(focus)
    shown: list[str] = []

    async def show(summary: str) -> None:  # the summary is the answer; it is discarded
        shown.append(summary)

    last: Event | None = None
    async for event in agent.compact(focus=focus_text, review=show if preview else None):
        if report is not None:
            report.event(event, progress=isinstance(event, HookNotice))
        elif isinstance(event, HookNotice):
            say_progress(event, err)
        if not isinstance(event, HookNotice):
            last = event
    assert isinstance(last, CompactionDone | CompactionFailed)
    if shown:
        out.write(shown[0].strip() + "\n")
        err.write(f"pleat: note: a preview: {describe_compaction(last)}\n")
        return EXIT_OK
    out.write(describe_compaction(last) + "\n")
    return EXIT_OK if isinstance(last, CompactionDone) else EXIT_FAILED


async def run_fork(agent: Agent, session: Session, _: str, out: TextIO, err: TextIO) -> int:
    """`pleat -p /fork --continue`: fork the session; print the new session's id."""
    try:
        child, _history, note = await fork_session(agent, session)
    except ForkRefused as error:
        print(f"pleat: error: {error}", file=err)
        return EXIT_CONFIG
    child.close()
    out.write(f"{note}\n{child.id}\n")
    return EXIT_OK


async def run_sandbox(agent: Agent, session: Session, _: str, out: TextIO, err: TextIO) -> int:
    """`pleat -p "/sandbox"`: where commands run, and what this machine enforces."""
    out.write(sandbox_report(agent.context.sandbox, agent.permissions) + "\n")
    return EXIT_OK


# What each built-in slash command a headless run takes does (`pleat -p "/undo" --continue`;
# the rows marked headless in agent/commands/builtin.py): each gets the agent, the session, the
# text after the command, stdout and stderr, and gives the exit code. A prompt naming none of
# them may name a custom command (agent/headless/custom.py), run as the turn it expands to.
HeadlessCommand = Callable[[Agent, Session, str, TextIO, TextIO], Coroutine[Any, Any, int]]
HEADLESS_COMMANDS: dict[str, HeadlessCommand] = {
    "/compact": run_compact,
    "/fork": run_fork,
    "/undo": run_undo,
    "/rewind": run_rewind,
    "/mcp": run_mcp,
    "/sandbox": run_sandbox,
    **TAKE_AWAY_COMMANDS,  # /export, /diff
    "/skills": run_skills,
    "/memory": run_memory,
}
