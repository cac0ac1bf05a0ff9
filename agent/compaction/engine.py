"""The compaction engine: DESIGN.md's eight steps, with overflow recovery, and never a loop.

measure (measure.py) -> trigger (`due`; early.py starts a background fold) -> choose tail
(tail.py) -> insert the instruction (instruction.py) and call the model (summary_call.py;
`summarize`) -> archive -> rebuild (archive_step.py) -> record -> check the gain (`commit`; the
caller swaps the history in and journals it in the same uninterruptible step:
agent/turn/folds.py).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from agent.compaction.archive_step import archive_and_rebuild
from agent.compaction.fold_parts import (
    CompressionCalls,
    Fold,
    Summarized,
    SummaryModel,
    SummaryUnavailable,
    archive_failure,
)
from agent.compaction.instruction import instruction_message, previous_summary
from agent.compaction.lead import FoldLead
from agent.compaction.measure import SUMMARY_OVERHEAD_TOKENS, Measure
from agent.compaction.pieces import summarize_in_pieces
from agent.compaction.policy import CompactionPolicy
from agent.compaction.reply import CompressionReply, ReplyError
from agent.compaction.summary_call import ask_summary, ledger_fold
from agent.compaction.tail import Split, choose_split, fold_start
from agent.events import (
    CompactionDone,
    CompactionFailed,
    CompactionStarted,
    Event,
    FoldMethod,
    FoldReason,
)
from agent.model.errors import LLMError
from agent.model.tokens import TokenLedger
from sessions.archive import ChunkArchive
from sessions.messages import ImageSource, Message

# Units pulled back, round by round, while the compression call would not fit or the provider
# says it overflows: each round doubles; past the last, the head itself is too big and is
# summarized in pieces. The newest unit (the reply and results since the last request) is pulled
# back from the first round: the compression call is then exactly the last request plus the
# instruction, a full cache hit, and the unit is reattached verbatim. The model has not read
# those results yet, so they are never folded into a summary; if they cannot fit, the last rung
# shrinks them to stubs it can read back (agent/compaction/shrink.py).
PULL_BACK_ROUNDS = (1, 2, 4, 8)


class Compactor(Measure):
    """Decides when to fold and folds. One per session; it holds the suspension state."""

    def __init__(
        self,
        policy: CompactionPolicy,
        llm: SummaryModel,
        archive: ChunkArchive,
        tokens: TokenLedger,
        *,
        new_id: Callable[[], str],
        secrets: Sequence[str] = (),
        window: int | None = None,
        transcript_system: str | None = None,
    ) -> None:
        super().__init__(policy, llm, tokens, window)
        # None: the instruction goes into the live conversation (cache reuse). A system prompt:
        # every fold is a summarization request of its own, a transcript under that prompt
        # (replay's "separate" baseline, the design pleat is measured against).
        self.transcript_system = transcript_system
        self.archive = archive
        self.new_id = new_id
        self.secrets = tuple(secrets)
        # Called with the name of each step as it completes ("summarized", "archived");
        # crash-safety tests stop the process there.
        self.step_hook: Callable[[str], None] | None = None
        # What reads attached images for the compression call (agent.assemble sets the agent's,
        # so that call sends the same images as the last request: a cache hit).
        self.images: ImageSource | None = None
        # Tokens the fold being made leaves room for in its tail (summarize's `growth`), and
        # where it cuts when the user chose (its `cut`, for that fold only).
        self._growth = 0
        self._cut: int | None = None
        # The context's size after the last fold, and how early a background fold must start
        # (agent/compaction/early.py decides when one does).
        self.after_last_fold: int | None = None
        self.lead = FoldLead()

    def step(self, name: str) -> None:
        self.step_hook(name) if self.step_hook is not None else None

    # -- step 2: trigger (step 1, measuring, is measure.py's) ------------------------------

    def due(self, history: list[Message]) -> FoldReason | None:
        """The reason to fold before the next model call, or None."""
        paused = self.suspended_below
        limit = paused if paused is not None else self.budget.trigger_tokens
        if self.tokens.size_at_most(history) < limit:  # below it for sure, nothing counted
            if paused is None and self.policy.max_messages:
                return "message_cap" if len(history) >= self.policy.max_messages else None
            return None
        size = self.tokens.size(history)
        if self.suspended_below is not None:
            if size < self.suspended_below:
                return None
            self.suspended_below = None
        reason: FoldReason | None = None
        if size >= self.budget.trigger_tokens:
            reason = "threshold"
        elif self.policy.max_messages and len(history) >= self.policy.max_messages:
            reason = "message_cap"
        if reason == "threshold" and self.expected_gain(history, 0) <= 0:
            # Folding what little is foldable would cost a model call and free nothing (the
            # summary message would be as big): the ladder shrinks tool results instead.
            return None
        return reason

    def expected_gain(self, history: list[Message], growth: int | None = None) -> int:
        """Tokens a fold now would free: what it takes out, less the summary message it puts
        in (the summary asked for plus the message's fixed parts); `growth` as summarize's."""
        foldable = self.foldable_tokens(history, growth)
        summary = self.budget.summary_target(self.policy, foldable) + SUMMARY_OVERHEAD_TOKENS
        return foldable - summary

    # -- the whole event ---------------------------------------------------------------------

    async def compact(
        self,
        history: list[Message],
        tools: list[dict[str, Any]],
        *,
        reason: FoldReason,
        focus: str | None = None,
    ) -> AsyncIterator[Event]:
        """Fold `history` where no live history is swapped (replay, benchmarks): summarize, then
        commit. The last event is CompactionDone (with the new history) or CompactionFailed
        (the history is unchanged)."""
        async for item in self.summarize(history, tools, reason=reason, focus=focus):
            yield await self.commit(item) if isinstance(item, Summarized) else item

    async def summarize(
        self,
        history: list[Message],
        tools: list[dict[str, Any]],
        *,
        reason: FoldReason,
        focus: str | None = None,
        growth: int = 0,
        cut: int | None = None,
    ) -> AsyncIterator[Event | Summarized]:
        """Steps 3 and 4: CompactionStarted, the compression calls' usage, then Summarized, or
        CompactionFailed when no summary could be made. Nothing is changed yet: a cancellation
        anywhere here leaves history and archive as they were. `growth`: tokens the history is
        expected to gain before the fold is swapped in (a background fold's); the verbatim tail
        it keeps is smaller by as much, since what arrives meanwhile stays verbatim after it.
        `cut`: fold exactly what comes before history[cut] and keep the rest ("fold up to
        here"), instead of choosing the tail."""
        self._growth, self._cut = growth, cut
        started = time.monotonic()
        before = self.tokens.size(history)
        yield CompactionStarted(reason, before, len(history))
        calls = CompressionCalls()
        model = str(getattr(self.llm, "model", "") or "")
        try:
            fold = await self._summarize(history, tools, reason=reason, focus=focus, calls=calls)
        except SummaryUnavailable as error:
            for event in calls.reported(model):
                yield event
            yield self._failed(reason, before, str(error))
            return
        finally:
            self._cut = None
        self.lead.call_took(time.monotonic() - started)
        for event in calls.reported(model):
            yield event
        self.step("summarized")
        yield Summarized(history, fold, reason, before, started, calls)

    async def commit(
        self, summarized: Summarized, added: Sequence[Message] = (), goal: str | None = None
    ) -> CompactionDone | CompactionFailed:
        """Steps 5 to 8: archive the folded messages, rebuild the history (the summary message
        carries the session's `goal`), check the gain. `added`: the messages that joined the
        conversation after the summarized one (a fold made in the background), kept verbatim
        after the rebuilt history. The caller makes the new history live and journals it in the
        same step, which no cancellation splits (Agent.compact)."""
        history, fold, reason = summarized.history, summarized.fold, summarized.reason
        before = summarized.tokens_before + sum(self.tokens.count(m) for m in added)
        try:
            new_history, chunk, merged, folded, shrunk = await archive_and_rebuild(
                history, fold, self, self.archive, self.new_id, self.step, goal
            )
        except OSError as error:  # the chunk write: nothing of it is left visible
            return self._failed(reason, before, archive_failure(self.archive.directory, error))
        # Step 8: check the gain; a fold that freed too little pauses automatic folding. The
        # gain is the fold's own: what arrived after a background fold's snapshot is not its.
        self.tokens.reset_report()
        folded_to = self.tokens.estimate(new_history)
        own = summarized.tokens_before
        gain = 1 - folded_to / own if own else 0.0
        new_history += added
        after = self.after_last_fold = self.tokens.estimate(new_history)
        self.lead.restart()
        suspended = gain < self.policy.min_gain
        self.suspended_below = (
            after + int(self.policy.min_gain * self.budget.usable) if suspended else None
        )
        return CompactionDone(
            reason=reason,
            chunk=chunk.number,
            topics=chunk.topics,
            merged=merged,
            method=fold.method,
            folded_messages=folded,
            tokens_before=before,
            tokens_after=after,
            messages_before=len(history) + len(added),
            messages_after=len(new_history),
            prompt_tokens=summarized.calls.prompt_tokens,
            cached_tokens=summarized.calls.cached_tokens,
            seconds=time.monotonic() - summarized.started,
            suspended=suspended,
            history=new_history,
            shrunk_messages=shrunk,
        )

    def _failed(self, reason: FoldReason, before: int, why: str) -> CompactionFailed:
        """A fold that did not happen; an automatic one is not tried again until the context
        has grown by the least gain worth a fold."""
        if reason != "manual":
            self.suspended_below = before + int(self.policy.min_gain * self.budget.usable)
        return CompactionFailed(reason, f"compaction failed, history unchanged: {why}")

    # -- steps 3 and 4: choose the tail, insert the instruction, ask ----------------------

    def _split(self, history: list[Message], pull_back: int, growth: int | None = None) -> Split:
        """Step 3: the tail kept verbatim is the policy's, cut down when the rebuilt history
        would not fit with it: what is pulled back (results the model has not read yet) keeps
        its room, and older exchanges in the tail are folded instead of those being stubbed. A
        cut the user chose is kept as it is: everything from it on comes back verbatim."""
        if self._cut is not None:
            if not fold_start(history) < self._cut < len(history):
                raise SummaryUnavailable("nothing before that request is left to fold")
            return Split(fold_start(history), self._cut, self._cut)
        growth = self._growth if growth is None else growth
        budget = self.shape or self.budget
        tail_tokens = max(0, min(budget.tail_tokens, self.tail_room(history, budget)) - growth)
        split = self._choose(history, tail_tokens, pull_back)
        over = self._rebuilt_excess(history, split)
        if over > 0:
            tail_tokens = max(0, sum(self.tokens.count(m) for m in split.tail(history)) - over)
            split = self._choose(history, tail_tokens, pull_back)
        return split

    def _choose(self, history: list[Message], tail_tokens: int, pull_back: int) -> Split:
        split = choose_split(
            history,
            self.tokens.count,
            tail_messages=self.policy.tail_messages,
            tail_tokens=tail_tokens,
            pull_back_units=pull_back,
        )
        if split is None:
            raise SummaryUnavailable("nothing to fold: the history is a single exchange")
        return split

    def _rebuilt_excess(self, history: list[Message], split: Split) -> int:
        """Tokens by which the history rebuilt from `split` would be over the window (the
        summary message counted at its cap): negative when it fits."""
        budget = self.shape or self.budget
        kept = history[: split.fold_start][:1] + split.tail(history) + split.pulled_back(history)
        summary = budget.summary_cap + SUMMARY_OVERHEAD_TOKENS
        tools = self.tokens.scaled(self.tokens.tools_tokens)
        size = tools + sum(self.tokens.count(m) for m in kept) + summary
        return size + self.margin - budget.usable

    def _instruction(self, history: list[Message], target: int, focus: str | None) -> Message:
        chunks, instructions = self.archive.chunks(), self.policy.instructions
        return instruction_message(
            history, chunks, target_tokens=target, focus=focus, instructions=instructions
        )

    async def _summarize(
        self,
        history: list[Message],
        tools: list[dict[str, Any]],
        *,
        reason: FoldReason,
        focus: str | None,
        calls: CompressionCalls,
    ) -> Fold:
        """Insert-then-compress, pulling back tail units until the call fits; an oversized
        head is summarized in pieces; in an overflow, the ledger alone is the last resort.
        With a transcript system prompt (replay's "separate" baseline), a transcript is always
        sent instead."""
        split = self._split(history, 0)
        if self.transcript_system is not None:
            system = Message(role="system", content=self.transcript_system)
            return await self._summarize_in_pieces(
                history, [], split, focus, calls, reason, system=system, method="separate"
            )
        for pull_back in PULL_BACK_ROUNDS:
            split = self._split(history, pull_back)
            target = self._target(history, split)
            instruction = self._instruction(history, target, focus)
            request = [*history[: split.send_end], instruction]
            if not self.request_fits(request, target):
                continue
            try:
                reply = await ask_summary(
                    self.llm, self.images, request, tools, calls, self.summary_output(target)
                )
            except LLMError as error:
                if error.kind == "context_overflow":
                    self.learn_from_overflow(error.limits, request)
                    continue
                if reason == "overflow":
                    return ledger_fold(split, f"the model could not summarize: {error.message}")
                raise SummaryUnavailable(error.message) from None
            except ReplyError as error:
                if reason == "overflow":
                    return ledger_fold(split, str(error))
                raise SummaryUnavailable(f"the model's summary was unusable: {error}") from None
            return Fold(split, reply, "insert")
        return await self._summarize_in_pieces(history, tools, split, focus, calls, reason)

    def foldable_tokens(self, history: list[Message], growth: int | None = None) -> int:
        """Tokens a fold would take out of the live history on its first try (0: nothing to
        fold); the UI uses it to skip an idle fold that would free too little."""
        try:
            split = self._split(history, PULL_BACK_ROUNDS[0], growth)
        except SummaryUnavailable:
            return 0
        return sum(self.tokens.count(m) for m in split.folded(history))

    def _target(self, history: list[Message], split: Split) -> int:
        folded_tokens = sum(self.tokens.count(m) for m in split.folded(history))
        return (self.shape or self.budget).summary_target(self.policy, folded_tokens)

    async def _summarize_in_pieces(
        self,
        history: list[Message],
        tools: list[dict[str, Any]],
        split: Split,
        focus: str | None,
        calls: CompressionCalls,
        reason: FoldReason,
        *,
        system: Message | None = None,
        method: FoldMethod = "pieces",
    ) -> Fold:
        """The head is larger than a window: summarize it piece by piece, each piece a
        transcript in one request, carrying the running summary forward."""
        target = self._target(history, split)
        system = system or history[0]
        room = self.budget.usable - target - self.tokens.count(system)
        room -= self.margin + 1_000  # the instruction's own size

        async def ask(request: list[Message]) -> CompressionReply:
            return await ask_summary(
                self.llm, self.images, request, tools, calls, self.summary_output(target)
            )

        try:
            reply = await summarize_in_pieces(
                split.folded(history),
                system,
                ask,
                count=self.tokens.count,
                room=max(room, 500),
                target=target,
                previous=previous_summary(history),
                focus=focus,
                instructions=self.policy.instructions,
            )
        except (LLMError, ReplyError) as error:
            if reason == "overflow":
                why = getattr(error, "message", None) or str(error)
                return ledger_fold(split, f"the model could not summarize: {why}")
            raise SummaryUnavailable(f"summarizing in pieces failed: {error}") from None
        return Fold(split, reply, method)
