"""Steps 1 and 2's numbers: the window and its budget (learned again from an overflow), the
safety margin, and whether a request fits; the fold engine (agent/compaction/engine.py) decides
with them when to fold."""

from __future__ import annotations

from collections.abc import Sequence

from agent.compaction.fold_parts import SummaryModel
from agent.compaction.policy import Budget, CompactionPolicy
from agent.model.overflow import MIN_STATED_WINDOW, StatedLimits
from agent.model.tokens import TokenLedger
from sessions.messages import Message

# Tokens of slack when checking that a request fits: the local count is an estimate of the
# provider's tokenizer, and 5% of a 16k window is roughly the error seen between them ...
FIT_MARGIN_SHARE = 0.05
# ... but never more than this: the error is a share of what is counted afresh (reports and
# calibration cover the rest), and 5% of a million-token window would waste 50k tokens.
FIT_MARGIN_MAX = 8_192
# A provider that refuses a request as too long without saying by how much: its window is
# taken to be this share of the refused request, so the next one is clearly smaller.
UNSTATED_WINDOW_SHARE = 0.9
# Tokens of a summary message beyond the summary itself: its header, the ledger, the chunk index
# and the reader tool's directions (250-350 tokens in the recorded sessions' folds).
SUMMARY_OVERHEAD_TOKENS = 300


class Measure:
    """The window a session's folds work in, and what fits it."""

    def __init__(
        self,
        policy: CompactionPolicy,
        llm: SummaryModel,
        tokens: TokenLedger,
        window: int | None = None,
    ) -> None:
        self.policy = policy
        self.llm = llm
        self.tokens = tokens
        self._window = window
        # Output tokens a provider said it counts against the window (its max_tokens in an
        # overflow error), kept free beyond the policy's reserve (0: none stated).
        self._output_floor = 0
        self._reply_limits: tuple[int, int | None] | None = None  # from the model, on first use
        # Automatic compaction is paused until the context reaches this size (no fold-loops).
        self.suspended_below: int | None = None
        # The budget a fold cuts its result for (the tail it keeps, the summary it asks for)
        # when not this model's own: before a switch to a model with a smaller window, this
        # model folds for that one (agent/conversation/model_switch.py).
        self.shape: Budget | None = None

    def count_text(self, text: str) -> int:
        """Tokens of a text as this session counts them (tool outputs are sized with it)."""
        return self.tokens.count_text(text)

    @property
    def budget(self) -> Budget:
        if self._window is None:
            self._window = self.policy.context_window or self.llm.context_window()
        if self._reply_limits is None:
            self._reply_limits = self.llm.reply_limits()
        floor, cap = self._reply_limits
        return Budget.of(
            self.policy,
            self._window,
            reserved_at_least=max(floor, self._output_floor),
            reserved_at_most=cap,
        )

    def learn_from_overflow(self, limits: StatedLimits, sent: Sequence[Message]) -> None:
        """The provider refused `sent` as too long: trust the window it states (when smaller
        than ours; from Ollama's "exceeded by N", our count of the request less N; from an
        error with no numbers, a little less than the request), keep the output it counted
        free, calibrate our token counts by its count of the request, and drop the size report
        that proved optimistic."""
        local = self.tokens.local_estimate(sent)
        window = limits.window
        if window is None and limits.excess is not None:
            window = self.tokens.scaled(local) - limits.excess
        if limits == StatedLimits():  # no numbers at all
            window = int(self.tokens.scaled(local) * UNSTATED_WINDOW_SHARE)
        if window is not None and window >= MIN_STATED_WINDOW:
            self._window = min(self.budget.window, window)
        if limits.output is not None and limits.output < self.budget.window // 2:
            self._output_floor = max(self._output_floor, limits.output)
        if limits.requested is not None:
            self.tokens.calibrate(limits.requested, local)
        self.tokens.reset_report()
        self.suspended_below = None

    @property
    def margin(self) -> int:
        """Tokens of slack when checking that a request fits (FIT_MARGIN_SHARE, capped)."""
        return min(int(self.budget.window * FIT_MARGIN_SHARE), FIT_MARGIN_MAX)

    def excess(self, history: list[Message]) -> int:
        """Tokens the next request is over what it may take (negative: room left): the usable
        window (the reply's reserve kept free) less the estimate's safety margin."""
        margin = self.margin
        return self.tokens.size(history) + margin - self.budget.usable

    def fits(self, history: list[Message]) -> bool:
        if self.tokens.size_at_most(history) + self.margin <= self.budget.usable:
            return True  # for sure, without counting
        return self.excess(history) <= 0

    def summary_output(self, target: int) -> int:
        """Output tokens kept for a compression reply (and sent as its max_tokens where a
        provider needs one): twice the summary asked for, or what thinking needs, within the
        reply's reserve."""
        floor = self._reply_limits[0] if self._reply_limits else 0
        return min(self.budget.reserved, max(2 * target, floor))

    def request_fits(self, request: list[Message], target: int) -> bool:
        """A compression request (history prefix + instruction) plus the summary's output fit
        the window; the prefix is sized from the provider's last report when it covers it."""
        size = self.tokens.size(request[:-1]) + self.tokens.count(request[-1])
        return size + self.summary_output(target) + self.margin <= self.budget.window

    def result_room(self, history: list[Message]) -> int:
        """The most tokens one new tool result can take and still fit once a fold has made
        room (the system prompt, the tool schemas and a summary message at its cap stay): a
        small window's results are cut to this, so they are never stubbed unread."""
        system = self.tokens.count(history[0]) if history else 0
        summary = self.budget.summary_cap + SUMMARY_OVERHEAD_TOKENS
        tools = self.tokens.scaled(self.tokens.tools_tokens)
        return self.budget.usable - self.margin - tools - system - summary

    def tail_room(self, history: list[Message], budget: Budget) -> int:
        """The most tokens a fold keeps verbatim in its tail: half of what the system prompt,
        the tool schemas and a summary at its cap leave below the threshold, so that a fold in
        a small window leaves the other half for the work until the next (and for the next
        fold's lead: agent/compaction/early.py); in a large window the policy's tail is less."""
        system = self.tokens.count(history[0]) if history else 0
        tools = self.tokens.scaled(self.tokens.tools_tokens)
        fixed = system + tools + budget.summary_cap + SUMMARY_OVERHEAD_TOKENS
        return max(0, (budget.trigger_tokens - fixed) // 2)
