"""`pleat -p "/undo" --continue` and `pleat -p "/rewind [N [files|conversation|both]]"`.

Headless cannot ask: a file changed since pleat wrote it keeps the user's version, one line on
stderr says so, and the run exits with EXIT_KEPT.
"""

from __future__ import annotations

from typing import TextIO

from agent.conversation.rewind import (
    REWIND_USAGE,
    Rewinder,
    RewindRefused,
    one_line,
    parse_rewind,
    turn_label,
)
from agent.headless.exit_codes import EXIT_CONFIG, EXIT_FAILED, EXIT_KEPT, EXIT_OK
from agent.turn.loop import Agent
from sessions.lineage import Scope
from sessions.store import Session

# How /rewind is written, for the error that answers a malformed one.


async def run_undo(agent: Agent, session: Session, arg: str, out: TextIO, err: TextIO) -> int:
    """Undo the last turn: its file changes and its messages."""
    if arg:
        print(f"pleat: error: /undo takes no argument (further back: {REWIND_USAGE})", file=err)
        return EXIT_CONFIG
    return await _rewind(Rewinder(agent, session), None, "both", out, err)


async def run_rewind(agent: Agent, session: Session, arg: str, out: TextIO, err: TextIO) -> int:
    """No argument: list the turns, numbered. `N [scope]`: rewind to before turn N."""
    rewinder = Rewinder(agent, session)
    words = arg.split()
    if not words:
        turns = await rewinder.turns()
        if not turns:
            out.write("no turns to rewind to yet\n")
        for number, turn in enumerate(turns, 1):
            out.write(turn_label(number, turn) + "\n")
        return EXIT_OK
    parsed = parse_rewind(arg)
    if parsed is None:
        print(f"pleat: error: {arg!r} is not a rewind: {REWIND_USAGE}", file=err)
        return EXIT_CONFIG
    return await _rewind(rewinder, *parsed, out, err)


async def _rewind(
    rewinder: Rewinder, number: int | None, scope: Scope, out: TextIO, err: TextIO
) -> int:
    try:
        plan = await rewinder.plan(number, scope)
    except RewindRefused as error:
        print(f"pleat: error: {error}", file=err)
        return EXIT_CONFIG
    try:
        outcome = await rewinder.apply(plan)  # headless never overwrites the user's changes
    except RewindRefused as error:
        print(f"pleat: error: {error}", file=err)
        return EXIT_FAILED
    out.write(outcome.summary(undo=number is None) + "\n")
    for path in outcome.restored:
        out.write(f"restored {one_line(path)}\n")
    for path in outcome.removed:
        out.write(f"removed {one_line(path)}\n")
    for path in outcome.kept:
        err.write(
            f"pleat: kept your version of {one_line(path)}: it changed after pleat wrote it\n"
        )
    for line in outcome.failed:
        err.write(f"pleat: not restored: {one_line(line)}\n")
    for note in plan.notes:
        err.write(f"pleat: note: {note}\n")
    return EXIT_KEPT if outcome.kept or outcome.failed else EXIT_OK
