"""Switching a live session to another model: when the context would not fit the new model's
fold threshold, it is folded before that model's first call.

The fold is made by the current model, whose window holds the context and whose provider cache
holds its prefix (one cached call, where the new model would need the head in pieces), cut for
the new model's budget: the tail it keeps and the summary it asks for are the new model's.
Whatever still does not fit then (a huge unread tool result, say) goes through the new model's
own ladder (agent/turn/room.py), as before any call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable

from agent.events import Event
from agent.turn.loop import Agent
from sessions.messages import Message


def needs_room(agent: Agent) -> bool:
    """Whether `agent`'s context is past its fold threshold or does not fit its window (counts
    every message once: call it in a thread)."""
    compactor = agent.compactor
    if compactor is None:
        return False
    return compactor.due(agent.history) is not None or not compactor.fits(agent.history)


async def fold_for(current: Agent, incoming: Agent) -> AsyncIterator[Event]:
    """Fold `current`'s history with its own model, cut for `incoming`'s budget."""
    assert current.compactor is not None and incoming.compactor is not None
    current.compactor.shape = incoming.compactor.budget
    try:
        async for event in current.compact(reason="model_switch"):
            yield event
    finally:
        current.compactor.shape = None


async def switch_model(
    current: Agent,
    build: Callable[[list[Message]], Agent],
    adopt: Callable[[Agent], None],
) -> AsyncGenerator[Event, None]:
    """Switch from `current` to the agent `build` makes over a history (the same session, the
    next model), handed to `adopt` once the context fits it, or once folding has done what it
    could. Events are those of the folds; Agent.make_room's ContextTooSmall is raised after
    the switch when even the new model's window cannot hold the system prompt and tools.
    Cancelled before `adopt`, the current model stays (a fold that committed is kept)."""
    incoming = await asyncio.to_thread(build, list(current.history))
    if await asyncio.to_thread(needs_room, incoming):
        async for event in fold_for(current, incoming):
            yield event
        incoming = await asyncio.to_thread(build, list(current.history))
    adopt(incoming)
    if incoming.compactor is not None and await asyncio.to_thread(needs_room, incoming):
        async for event in incoming.make_room():
            yield event
