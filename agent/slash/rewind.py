"""/undo and /rewind: the last request, or an earlier one, taken back (agent/conversation/rewind.py
does the work); where the front end can ask, it picks the turn and asks about files changed since
pleat wrote them, elsewhere the user's version of such a file is kept."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agent.conversation.rewind import (
    REWIND_USAGE,
    Rewinder,
    RewindRefused,
    one_line,
    parse_rewind,
    turn_label,
)
from agent.events import CommandOutput, Notice, SessionEvent
from agent.slash.context import CommandContext, Failed, Refused
from sessions.lineage import Scope


def _rewinder(ctx: CommandContext) -> Rewinder:
    agent, session = ctx.working()
    return Rewinder(agent, session)


async def undo(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """The last turn's file changes and messages go; its request comes back."""
    if arg:
        raise Refused(f"/undo takes no argument (further back: {REWIND_USAGE})")
    async for event in _rewind(ctx, _rewinder(ctx), None, "both"):
        yield event


async def rewind(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """`N [scope]`: back to before turn N. Alone: the front end picks, or the turns are listed."""
    rewinder = _rewinder(ctx)
    if arg.split():
        parsed = parse_rewind(arg)
        if parsed is None:
            raise Refused(f"{arg!r} is not a rewind: {REWIND_USAGE}")
        async for event in _rewind(ctx, rewinder, *parsed):
            yield event
        return
    turns = await rewinder.turns()
    if not ctx.front.interactive:
        listed = [turn_label(number, turn) for number, turn in enumerate(turns, 1)]
        yield CommandOutput("\n".join(listed) if listed else "no turns to rewind to yet")
        return
    if not turns:
        yield CommandOutput("nothing to rewind to: no request yet")
        return
    chosen = await ctx.front.pick_turn(turns)
    if chosen is None:
        return
    number, scope = chosen
    if scope == "fold":  # "fold up to here": the turn and what follows stay word for word
        from agent.slash.fold import fold

        async for event in fold(ctx, None, before=turns[number - 1].id):
            yield event
        return
    async for event in _rewind(ctx, rewinder, number, scope):
        yield event


async def _rewind(
    ctx: CommandContext, rewinder: Rewinder, number: int | None, scope: Scope
) -> AsyncIterator[SessionEvent]:
    what = "undo" if number is None else "rewind"
    try:
        plan = await rewinder.plan(number, scope)
    except RewindRefused as error:
        raise Refused(str(error)) from error
    overwrite: list[str] = []
    if plan.conflicts and ctx.front.interactive:
        answer = await ctx.front.overwrite(plan.conflicts)
        if answer is None:
            yield CommandOutput(f"{what} cancelled: nothing changed")
            return
        overwrite = answer
    try:
        outcome = await rewinder.apply(plan, overwrite)
    except RewindRefused as error:
        raise Failed(str(error)) from error
    lines = [outcome.summary(number is None)]
    if plan.history is not None:
        lines += await ctx.front.history_replaced("rewind", outcome.prompt or None)
    lines += [f"restored {one_line(path)}" for path in outcome.restored]
    lines += [f"removed {one_line(path)}" for path in outcome.removed]
    yield CommandOutput("\n".join(lines))
    for path in outcome.kept:
        yield Notice(f"kept your version of {one_line(path)}: it changed after pleat wrote it")
    for line in outcome.failed:
        yield Notice(f"not restored: {one_line(line)}", "error")
    for note in plan.notes:
        yield Notice(f"note: {note}")
    if outcome.kept or outcome.failed:
        ctx.outcome = "partial"
