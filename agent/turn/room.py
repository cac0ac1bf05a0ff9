"""The ladder before a model call: fold, shrink what the model has read, fold harder, shrink."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agent.compaction.last_rung import request_too_big, too_small
from agent.events import CompactionFailed, Event
from agent.turn.ports import RoomHost

# Rounds of the ladder (fold, then shrink tool results) before a request is declared too big:
# the second round folds what the first round's stubs made foldable.
LADDER_ROUNDS = 2
# Fold reasons that need not wait for a background fold still running while the request fits:
# the threshold (and the message cap) are targets set below the window's edge, not the edge.
BESIDE = frozenset({"threshold", "message_cap"})


class ContextTooSmall(Exception):
    """The request cannot fit the window however much is folded or shrunk (one line: why);
    `request_too_big`: the user's message is what does not fit (the setup alone would)."""

    def __init__(self, why: str, *, request_too_big: bool = False) -> None:
        super().__init__(why)
        self.request_too_big = request_too_big


async def fold_beside(agent: RoomHost, reason: str | None) -> AsyncIterator[Event]:
    """A fold due at the threshold, with none running and the request fitting, starts beside
    the turn (agent/compaction/early.py) instead of holding it up."""
    compactor = agent.compactor
    assert compactor is not None
    if reason == "threshold" and agent.folds.background is None and compactor.fits(agent.history):
        async for event in agent.folds.fold_early(at_threshold=True):
            yield event


async def make_room(agent: RoomHost, *, overflow: bool = False) -> AsyncIterator[Event]:
    """Fold when due (or after the provider said the last request overflowed; a fold started in
    the background is swapped in then: agent/turn/background_fold.py); if the request
    still cannot fit, shrink the largest results the model has read, then fold harder once
    (the kept tail gives way to what the model has not read yet), and only then shrink the
    newest results. A request that still does not fit is sent all the same (the reply's
    reserve is a margin, and the provider has the last word) unless even the system prompt,
    the tools and the user's message alone are too big: then ContextTooSmall."""
    compactor = agent.compactor
    assert compactor is not None
    reason = "overflow" if overflow else compactor.due(agent.history)
    if reason in BESIDE and compactor.fits(agent.history):
        async for event in fold_beside(agent, reason):  # none began: one does
            yield event
        if agent.folds.folding_beside():
            return  # the background fold is applied once ready; nobody waits while there is room
    if reason is None:  # not due yet: past early_fold_at, the fold starts in the background
        async for event in agent.folds.fold_early():
            yield event
    for rung in range(LADDER_ROUNDS):
        folded = True
        if reason is not None:
            async for event in agent.compact(reason=reason):
                folded = folded and not isinstance(event, CompactionFailed)
                yield event
        if compactor.fits(agent.history):
            if reason is not None and folded:  # in a small window the next may be due at once
                async for event in fold_beside(agent, compactor.due(agent.history)):
                    yield event
            return
        if not folded and not overflow:
            break  # the fold just failed (and says why); the provider decides
        last = rung == LADDER_ROUNDS - 1 or not compactor.foldable_tokens(agent.history)
        folds = agent.folds
        shrunk, problem = await folds.commits.run(
            folds.shrink(reason or "overflow", unread_too=last)
        )
        folds.unannounced.clear()
        if problem is not None:
            yield problem
        if shrunk is not None:
            yield shrunk
        if compactor.fits(agent.history) or isinstance(shrunk, CompactionFailed):
            return
        if last:
            break
        reason = "overflow"
    if problem_text := too_small(compactor, agent.history):
        raise ContextTooSmall(
            problem_text, request_too_big=request_too_big(compactor, agent.history)
        )
