"""The agent's folds: a fold now (or the one started in the background, swapped in), starting a
fold in the background, the last rung's shrink, and the one uninterruptible step that makes a
rebuilt history live and journals it (agent/turn/uninterruptible.py)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, Protocol

from agent.compaction.early import early_start, observed_size
from agent.compaction.engine import Compactor
from agent.compaction.fold_parts import Summarized
from agent.compaction.last_rung import shrink_to_fit
from agent.events import (
    CompactionDone,
    CompactionFailed,
    CompactionStarted,
    ErrorEvent,
    Event,
    FoldDropped,
    FoldReason,
    HookNotice,
    UsageReported,
)
from agent.turn.background_fold import BackgroundFold, replayed
from agent.turn.recorder import Recorder
from agent.turn.uninterruptible import UninterruptibleSteps
from sessions.archive import ChunkArchive
from sessions.journal import now
from sessions.messages import Message

# Fold reasons a background fold's ready summary stands in for: the automatic ones (a manual,
# idle, fork or model-switch fold is one of its own).
AUTOMATIC = frozenset({"threshold", "message_cap", "overflow"})
# What becomes of a summary the user discarded (/compact --preview).
DISCARDED = "summary discarded: nothing archived, history unchanged"
# A fold whose summary the user was shown while the conversation was replaced (not by a turn:
# a fold shown for review holds the turns back).
CHANGED_MEANWHILE = "the conversation changed while the summary was shown: discarded, unchanged"
# Said when "fold up to here" names a request a fold has taken already.
FOLDED_ALREADY = "that request is folded already: nothing before it is left to fold"

# Shows the model's summary to the user before it is applied (/compact --preview): gives back
# the summary to apply (edited or not), or None to discard it.
SummaryReview = Callable[[str], Awaitable[str | None]]
# How /compact asks to see the summary first: `/compact --preview [focus]`.
PREVIEW_FLAG = "--preview"


def compact_argument(text: str) -> tuple[bool, str | None]:
    """/compact's argument as (preview, focus): `--preview` first, then the focus if any."""
    first, _, rest = text.strip().partition(" ")
    preview = first == PREVIEW_FLAG
    focus = (rest if preview else text).strip()
    return preview, focus or None


class FoldHooks(Protocol):
    """The hook events of a fold (agent/turn/agent_hooks.py)."""

    async def pre_compact(self, reason: FoldReason, focus: str | None) -> str | None: ...

    async def post_compact(
        self, done: CompactionDone, archive: ChunkArchive
    ) -> list[HookNotice]: ...

    def take_notices(self) -> list[HookNotice]: ...


class FoldHost(Protocol):
    """What folding uses of the agent (agent/turn/loop.py)."""

    compactor: Compactor | None
    history: list[Message]
    recorder: Recorder | None
    goal: str | None  # the session's goal (agent/turn/goal.py): every summary carries it

    @property
    def hooks(self) -> FoldHooks: ...

    def schemas(self) -> list[dict[str, Any]]: ...

    async def safe_point(self) -> ErrorEvent | None: ...

    def record_usage(self, event: UsageReported) -> None: ...


class Folds:
    """The folds of one agent, and the state they keep between turns."""

    def __init__(self, agent: FoldHost) -> None:
        self.agent = agent
        # Folds and shrinks commit as one step a cancellation waits for (a front end that
        # quits waits too: commits.settled()).
        self.commits = UninterruptibleSteps()
        # Outcomes of commits the consumer was cancelled before seeing (take_unannounced).
        self.unannounced: list[Event] = []
        self.background: BackgroundFold | None = None  # a fold started early, still running

    async def compact(
        self,
        *,
        reason: FoldReason = "manual",
        focus: str | None = None,
        review: SummaryReview | None = None,
        before: str | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Fold the history now (/compact [focus], or the ladder before a model call: a ready
        background fold is swapped in then); events end with CompactionDone or Failed.
        `review`: the user sees the summary first (and may edit or discard it); `before`: the
        id of the message the fold stops at (the rest stays verbatim: "fold up to here")."""
        agent, compactor = self.agent, self.agent.compactor
        if compactor is None:
            yield CompactionFailed(reason, "compaction is not available in this session")
            return
        began = time.monotonic()  # what the turn waits for this fold starts here
        ready = self.background if reason in AUTOMATIC else None
        if ready is not None and ready.still_fits(agent.history):  # swapped in at once
            result = await ready.result()  # the rest of its call, if it still runs
            self.background, added = None, ready.added(agent.history)
            self._journal("applied", f"{len(added)} messages kept after its snapshot")
            items: AsyncIterator[Event | Summarized] = replayed(result)
        else:
            used = self.background.usage() if self.background is not None else []
            if (dropped := self.drop_background_fold(f"a {reason} fold runs instead")) is not None:
                for usage in used:  # recorded; said, so a sub-agent's parent and a report count it
                    yield usage
                yield dropped
            ids = [message.id for message in agent.history]
            if before is not None and before not in ids:
                yield CompactionFailed(reason, FOLDED_ALREADY)
                return
            focus = await agent.hooks.pre_compact(reason, focus)  # PreCompact's stdout joins it
            schemas, added = agent.schemas(), []
            cut = None if before is None else ids.index(before)
            items = compactor.summarize(agent.history, schemas, reason=reason, focus=focus, cut=cut)
        async for item in items:
            for notice in agent.hooks.take_notices():
                yield notice
            if isinstance(item, Summarized) and review is not None:
                reviewed = await self._reviewed(item, review)
                if isinstance(reviewed, CompactionFailed):
                    yield reviewed
                    continue
                item = reviewed
            if isinstance(item, Summarized):  # no await between this and the commit
                outcome, problem = await self.commits.run(self._commit(item, added))
                self.unannounced.clear()
                if problem is not None:
                    yield problem
                if isinstance(outcome, CompactionDone):
                    outcome = dataclasses.replace(outcome, waited=time.monotonic() - began)
                yield outcome
                if isinstance(outcome, CompactionDone):  # PostCompact: the chunk is on disk
                    for notice in await agent.hooks.post_compact(outcome, compactor.archive):
                        yield notice
                continue
            if isinstance(item, UsageReported):
                agent.record_usage(item)
            elif isinstance(item, CompactionFailed) and ready is not None:  # the ordinary fold
                self._journal("dropped", item.message)
                yield FoldDropped(item.message)
                async for event in self.compact(reason=reason):
                    yield event
                return
            yield item

    async def fold_early(self, *, at_threshold: bool = False) -> AsyncGenerator[Event, None]:
        """Start a fold in the background when it is due to be ready at the threshold, or at
        the threshold itself while the request fits (agent/compaction/early.py;
        agent/turn/background_fold.py)."""
        agent, compactor = self.agent, self.agent.compactor
        if compactor is None or (size := observed_size(compactor, agent.history)) is None:
            return
        if self.background is not None:
            return
        start = early_start(compactor, agent.history, size, at_threshold=at_threshold)
        if start is None:
            return
        focus = await agent.hooks.pre_compact("threshold", None)  # PreCompact runs as it starts
        for notice in agent.hooks.take_notices():
            yield notice
        self.background = BackgroundFold(
            compactor, agent.history, agent.schemas(), focus, start.growth
        )
        self._journal("started", f"on {len(agent.history)} messages, {size} tokens")
        yield CompactionStarted(
            "threshold", size, len(agent.history), background=True, note=start.note
        )

    def folding_beside(self) -> bool:
        """Whether a background fold of this conversation is still running: at the threshold
        the turn goes on beside it while the request still fits (agent/turn/room.py)."""
        fold = self.background
        return fold is not None and not fold.task.done() and fold.still_fits(self.agent.history)

    async def _reviewed(
        self, summarized: Summarized, review: SummaryReview
    ) -> Summarized | CompactionFailed:
        """The fold with the summary the user accepted (perhaps edited), or why there is none:
        discarded, or the conversation changed while they read it."""
        summary = await review(summarized.fold.reply.summary)
        if summary is None or not summary.strip():
            return CompactionFailed(summarized.reason, DISCARDED, discarded=True)
        if self.agent.history is not summarized.history:  # replaced (a switch): not this one
            return CompactionFailed(summarized.reason, CHANGED_MEANWHILE)
        return summarized.with_summary(summary.strip())

    def drop_background_fold(self, why: str) -> FoldDropped | None:
        """Drop the background fold, if one runs: its summary is never applied."""
        fold, self.background = self.background, None
        if fold is None:
            return None
        for usage in fold.usage():  # a call that finished was billed, applied or not
            self.agent.record_usage(usage)
        fold.drop()
        self._journal("dropped", why)
        return FoldDropped(why)

    def end(self, why: str) -> list[UsageReported]:
        """Drop the background fold when the run, session or sub-agent ends; gives back what
        its finished call reported (recorded here), for a report or a parent to count."""
        used = self.background.usage() if self.background is not None else []
        self.drop_background_fold(why)
        return used

    def _journal(self, state: str, detail: str) -> None:
        """The journal says what became of a background fold (a resume ignores these)."""
        if self.agent.recorder is not None:
            record = {"type": "background_fold", "time": now(), "state": state, "detail": detail}
            self.agent.recorder.record(record)

    async def _commit(
        self, summarized: Summarized, added: list[Message]
    ) -> tuple[CompactionDone | CompactionFailed, ErrorEvent | None]:
        """A fold's commit as one step: archive, rebuild, swap in, record (run uninterrupted);
        `added`: the messages that joined after a background fold's snapshot."""
        assert self.agent.compactor is not None
        outcome = await self.agent.compactor.commit(summarized, added, self.agent.goal)
        problem = await self._adopt(outcome) if isinstance(outcome, CompactionDone) else None
        self.unannounced.append(outcome)
        return outcome, problem

    async def shrink(
        self, reason: FoldReason, *, unread_too: bool
    ) -> tuple[Event | None, ErrorEvent | None]:
        """The last rung as one step: archive the originals, swap in the stubs, record it (run
        uninterrupted)."""
        assert self.agent.compactor is not None
        shrunk = await shrink_to_fit(
            self.agent.compactor, self.agent.history, reason=reason, unread_too=unread_too
        )
        problem = await self._adopt(shrunk) if isinstance(shrunk, CompactionDone) else None
        if shrunk is not None:
            self.unannounced.append(shrunk)
        return shrunk, problem

    async def _adopt(self, done: CompactionDone) -> ErrorEvent | None:
        """Make a rebuilt history (its chunk already on disk) the live one, and record it; a
        journal failure is returned to be said."""
        compactor = self.agent.compactor
        assert compactor is not None
        self.replace_history(done)
        compactor.step("swapped")
        problem = await self.agent.safe_point()
        compactor.step("recorded")
        return problem

    def take_unannounced(self) -> list[Event]:
        """Folds (or shrinks) that committed while the consumer was being cancelled, so it
        never saw their outcome: a front end shows them after the interruption."""
        missed, self.unannounced = self.unannounced, []
        return missed

    def replace_history(self, done: CompactionDone) -> None:
        """Swap in a rebuilt history (after its chunk is on disk) and record it."""
        self.agent.history = list(done.history)
        if self.agent.recorder is not None:
            self.agent.recorder.compaction(done.chunk, done.merged, done.history)
