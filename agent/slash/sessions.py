"""The built-ins about the session itself: /goal, /rename, /add-dir, and switching (/new,
/resume, /sessions), which needs the session runtime (agent/session/runtime.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from agent.events import CommandOutput, SessionEvent
from agent.slash.context import CommandContext, Failed, Refused
from agent.turn.goal import CLEAR, set_goal

# Said by /goal when the session has none.
NO_GOAL = "This session has no goal: /goal TEXT sets one (kept word for word through every fold)."
# Said by a switch where the front end holds no session runtime (one run: `pleat -p`).
NO_RUNTIME = "switching sessions needs a front end that keeps the session open (the terminal UI)"


async def goal(ctx: CommandContext, text: str) -> AsyncIterator[SessionEvent]:
    """`/goal` shows the goal, `/goal clear` drops it, `/goal TEXT` sets it: the journal keeps
    it, the model is told with the next prompt."""
    from sessions.goal import GoalError, checked_goal

    agent, _session = ctx.working()
    if not text.strip():
        yield CommandOutput(NO_GOAL if agent.goal is None else f"goal: {agent.goal}")
        return
    if text.strip() == CLEAR:
        if agent.goal is None:
            yield CommandOutput(NO_GOAL)
            return
        set_goal(agent, None)
        yield CommandOutput("goal cleared (the model is told with your next prompt)")
        return
    try:
        wanted = checked_goal(text)
    except GoalError as error:
        raise Refused(f"/goal: {error}") from error
    set_goal(agent, wanted)
    yield CommandOutput(
        f"goal set (the model is told with your next prompt; every fold keeps it): {wanted}"
    )


async def rename(ctx: CommandContext, text: str) -> AsyncIterator[SessionEvent]:
    """Name the session (journaled: the name survives a resume and titles it in the picker)."""
    from sessions.journal import now
    from sessions.session_name import SessionNameError, checked_name, name_record

    _agent, session = ctx.working()
    try:
        name = checked_name(text)
    except SessionNameError as error:
        raise Refused(f"cannot rename: {error}") from error
    session.record(name_record(name, now()))
    yield CommandOutput(f"this session is now called “{name}” (its title in /resume)")


async def add_dir(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """Let the model read and write DIR this session; alone: list the added directories."""
    from agent.session.add_dir import add_dir as add_or_list

    agent, _session = ctx.working()
    line, error = await asyncio.to_thread(add_or_list, agent, arg, ctx.workspace)
    if error:
        raise Refused(line)
    yield CommandOutput(line)


async def new(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """Start a new session (the old one stays, to resume)."""
    if ctx.controller is None:
        raise Refused(NO_RUNTIME)
    await asyncio.to_thread(ctx.controller.new)
    for line in await ctx.front.history_replaced("clear"):
        yield CommandOutput(line)


async def resume(ctx: CommandContext, wanted: str) -> AsyncIterator[SessionEvent]:
    """Switch to session WANTED (an id, a prefix or a name); alone: the front end picks one."""
    from sessions.lock import SessionBusy
    from sessions.store import SessionError

    if not wanted:
        async for event in sessions(ctx, ""):
            yield event
        return
    if ctx.controller is None:
        raise Refused(NO_RUNTIME)
    try:
        _history, notes = await asyncio.to_thread(ctx.controller.resume, wanted)
    except (SessionError, SessionBusy) as error:
        raise Failed(f"cannot resume: {error}") from error
    for line in await ctx.front.history_replaced("resume", notes=notes):
        yield CommandOutput(line)


async def sessions(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """This workspace's sessions, to pick one to switch to."""
    chosen = await ctx.front.pick_session()
    current = ctx.session.id if ctx.session is not None else None
    if chosen is not None and chosen != current:
        async for event in resume(ctx, chosen):
            yield event
