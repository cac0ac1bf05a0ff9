"""What model calls cost: one call's usage as reported, and a session's running tally (compression
included), as billed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# What a model call was for: the turn itself, a compression call of a fold, or a call made by a
# sub-agent of the session (its `task` tool: agent/subagents/team.py), billed to the session too.
CallPurpose = Literal["turn", "compression", "subagent"]
CALL_PURPOSES: tuple[CallPurpose, ...] = ("turn", "compression", "subagent")


@dataclass(frozen=True)
class Usage:
    """Token usage of one model call, as the provider reported it."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens read from the provider's cache
    cache_creation_tokens: int = 0  # prompt tokens written to the cache (Anthropic)
    cost: float | None = None  # in USD, when litellm knows the model's prices
    # Milliseconds from the request to the reply's last piece (the json result's
    # duration_api_ms); not part of what a call used, so two usages compare without it.
    api_ms: int = field(default=0, compare=False)


@dataclass
class UsageTally:
    """Running totals of a session's calls (the journal's usage records, summed)."""

    calls: int = 0
    compression_calls: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0  # read from the provider's cache
    cache_creation_tokens: int = 0  # written to it (billed above plain input by Anthropic)
    completion_tokens: int = 0
    cost: float | None = None  # USD; None until a call with a known price
    # Milliseconds spent waiting on this run's calls (the journal does not keep them, so a
    # resumed session's earlier calls add nothing): a status line's total_api_duration_ms.
    api_ms: int = field(default=0, compare=False)

    def add(self, usage: Usage, purpose: CallPurpose = "turn") -> None:
        self.calls += 1
        self.compression_calls += purpose == "compression"
        self.prompt_tokens += usage.prompt_tokens
        self.cached_tokens += usage.cached_tokens
        self.cache_creation_tokens += usage.cache_creation_tokens
        self.completion_tokens += usage.completion_tokens
        self.api_ms += usage.api_ms
        if usage.cost is not None:
            self.cost = (self.cost or 0.0) + usage.cost

    def add_record(self, record: dict[str, Any]) -> None:
        """Count a journal usage record (fields as Session.usage wrote them)."""

        def number(name: str) -> int:
            value = record.get(name, 0)
            return int(value) if isinstance(value, int | float) and value >= 0 else 0

        cost = record.get("cost")
        usage = Usage(
            prompt_tokens=number("prompt_tokens"),
            completion_tokens=number("completion_tokens"),
            cached_tokens=number("cached_tokens"),
            cache_creation_tokens=number("cache_creation_tokens"),
            cost=float(cost) if isinstance(cost, int | float) else None,
        )
        named = record.get("purpose")
        purpose: CallPurpose = next((p for p in CALL_PURPOSES if p == named), "turn")
        self.add(usage, purpose)
