"""The four designs replayed side by side: insert (pleat), separate, mask, none."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from agent.compaction.engine import Compactor
from agent.compaction.fold_parts import SummaryModel
from agent.compaction.offline_model import OfflineSummarizer
from agent.compaction.policy import Budget, CompactionPolicy
from agent.events import CompactionDone, CompactionFailed, Retrying, ThinkingDelta
from agent.model.llm import LLMReply
from agent.model.tokens import TokenLedger
from agent.replay.cache_model import CacheModel
from agent.replay.recorded import BASH_TOOL, RecordedSession
from agent.replay.rereads import note_for
from sessions.archive import ChunkArchive
from sessions.messages import Message

# How a replayed session keeps its context in bounds: pleat's fold ("insert"), a separate
# summarization request ("separate"), observation masking ("mask"), or nothing ("none").
Strategy = Literal["insert", "separate", "mask", "none"]
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
# The system prompt of the "separate" strategy's own summarization requests.
SEPARATE_SYSTEM_PROMPT = (
    "You summarize a coding agent's conversation so the agent can continue the work from "
    "your summary alone. Follow the instructions in the user message exactly."
)
# Observation masking keeps the newest this many tool outputs verbatim: the window the
# JetBrains "Complexity Trap" study found best for SWE-agent-style sessions (M = 10).
MASK_KEEP_NEWEST = 10
MASK_PLACEHOLDER = "[old tool output omitted]"


@dataclass
class CallSeries:
    """One replayed session's requests in order, for the report page's charts."""

    context: list[int] = field(default_factory=list)  # context tokens of each request
    billed: list[float] = field(default_factory=list)  # billed so far after each (folds incl.)
    folds: list[int] = field(default_factory=list)  # requests sent right after a fold
    masks: list[int] = field(default_factory=list)  # requests sent right after a masking


@dataclass
class StrategyResult:
    """One session under one strategy."""

    strategy: Strategy
    session: str
    requests: int = 0
    compactions: int = 0
    failures: int = 0
    peak_context: int = 0
    overflow_at: int | None = None  # index of the first message whose request overflowed
    billed: float = 0.0  # cost units (cache model prices)
    prompt_tokens: int = 0
    cached_tokens: int = 0
    compression_prompt_tokens: int = 0
    compression_cached_tokens: int = 0
    engine_seconds: float = 0.0
    # pleat's notes for unchanged re-reads (agent/replay/rereads.py; "insert" only): how many
    # recorded results became one, and the tokens of those results less the notes' own.
    reread_notes: int = 0
    reread_tokens_saved: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    series: CallSeries = field(default_factory=CallSeries)

    @property
    def finished(self) -> bool:
        return self.overflow_at is None


class _BilledModel:
    """Wraps the summarizer so every compression request is priced by the cache model."""

    def __init__(
        self, inner: SummaryModel, cache: CacheModel, result: StrategyResult, cacheable: bool
    ) -> None:
        self.inner = inner
        self.cache = cache
        self.result = result
        self.cacheable = cacheable

    def context_window(self) -> int:
        return self.inner.context_window()

    def reply_limits(self) -> tuple[int, int | None]:
        return self.inner.reply_limits()

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        max_tokens: int | None = None,
    ) -> AsyncIterator[str | ThinkingDelta | Retrying | LLMReply]:
        charge = self.cache.request(messages, tools, cacheable=self.cacheable)
        self.result.billed += charge.cost
        self.result.compression_prompt_tokens += charge.prompt_tokens
        self.result.compression_cached_tokens += charge.cached_tokens
        async for item in self.inner.stream(messages, tools):
            yield item


def _mask(history: list[Message]) -> list[Message]:
    """Tool outputs older than the newest MASK_KEEP_NEWEST replaced by a placeholder."""
    results = [i for i, m in enumerate(history) if m.role == "tool"]
    old = set(results[:-MASK_KEEP_NEWEST]) if MASK_KEEP_NEWEST else set(results)
    return [
        dataclasses.replace(m, content=MASK_PLACEHOLDER)
        if i in old and m.content != MASK_PLACEHOLDER
        else m
        for i, m in enumerate(history)
    ]


async def run_strategy(
    strategy: Strategy,
    session: RecordedSession,
    *,
    policy: CompactionPolicy,
    window: int,
    archive_dir: Path,
    cache: CacheModel | None = None,
    summarizer: SummaryModel | None = None,
    on_compaction: Callable[[list[Message], CompactionDone], None] | None = None,
) -> StrategyResult:
    """Replay one recorded session under one strategy; the recorded assistant messages stand
    in for the model's replies, and each one is a request priced by the cache model. Under
    pleat's strategy ("insert") a re-read of an unchanged file still in the context is the
    note read_file gives (agent/replay/rereads.py); the other designs keep every result."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    cache = cache or CacheModel()
    result = StrategyResult(strategy, session.name)
    tokens = TokenLedger([BASH_TOOL])
    budget = Budget.of(policy, window)
    compactor: Compactor | None = None
    if strategy in ("insert", "separate"):
        counter = iter(range(1_000_000, 10_000_000))
        model = _BilledModel(
            summarizer or OfflineSummarizer(window), cache, result, cacheable=strategy == "insert"
        )
        compactor = Compactor(
            policy,
            model,
            ChunkArchive(archive_dir, session.name),
            tokens,
            new_id=lambda: f"m{next(counter)}",
            window=window,
            transcript_system=SEPARATE_SYSTEM_PROMPT if strategy == "separate" else None,
        )
    history: list[Message] = [session.messages[0]]
    for index, message in enumerate(session.messages[1:], 1):
        if message.role == "assistant":
            started = time.perf_counter()
            if compactor is not None and (reason := compactor.due(history)) is not None:
                async for event in compactor.compact(history, [BASH_TOOL], reason=reason):
                    if isinstance(event, CompactionDone):
                        if on_compaction is not None:
                            on_compaction(history, event)
                        history = list(event.history)
                        result.compactions += 1
                        result.series.folds.append(result.requests)
                    elif isinstance(event, CompactionFailed):
                        result.failures += 1
            if strategy == "mask" and tokens.size(history) >= budget.trigger_tokens:
                masked = _mask(history)
                if masked != history:
                    result.series.masks.append(result.requests)
                history = masked
                tokens.reset_report()
            size = tokens.size(history)
            result.engine_seconds += time.perf_counter() - started
            charge = cache.request_history(history, [BASH_TOOL])
            result.requests += 1
            result.billed += charge.cost
            result.prompt_tokens += charge.prompt_tokens
            result.cached_tokens += charge.cached_tokens
            result.peak_context = max(result.peak_context, size)
            result.series.context.append(size)
            result.series.billed.append(result.billed)
            if size > budget.window:
                result.overflow_at = index  # a provider refuses it: the session ends here
                break
            tokens.report(size, history, len(history))
        if strategy == "insert" and message.role == "tool":
            if (note := note_for(history, message)) is not None:
                result.reread_notes += 1
                # By their texts: the ledger's counts are kept by message id, which they share.
                saved = tokens.count_text(message.content or "") - tokens.count_text(
                    note.content or ""
                )
                result.reread_tokens_saved += saved
                message = note
        history.append(message)
    return result
