"""A provider's prompt cache, modelled: a request is served from cache for its longest common
prefix with earlier requests still alive; the rest is written (or sent uncached), and priced."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.model.tokens import count_text
from sessions.messages import Message, provider_messages


@dataclass(frozen=True)
class Prices:
    """Cost units per input token. Defaults are Anthropic's ratios: a cache read costs a tenth
    of plain input, a cache write a quarter more."""

    uncached: float = 1.0
    cache_read: float = 0.1
    cache_write: float = 1.25


# An entry lives this long after its last use (Anthropic's default cache lifetime is 5 minutes,
# refreshed on every hit).
DEFAULT_LIFETIME_SECONDS = 300.0
# Replayed sessions carry no timestamps; each model call is taken to last this long, the
# typical pace of a coding agent's turn (model latency plus a tool run).
DEFAULT_SECONDS_PER_REQUEST = 15.0


@dataclass
class Charge:
    """One request as the cache model billed it."""

    prompt_tokens: int
    cached_tokens: int
    cost: float


@dataclass
class CacheModel:
    """Prefix cache over requests (tool schemas, then messages, as units)."""

    prices: Prices = field(default_factory=Prices)
    lifetime: float = DEFAULT_LIFETIME_SECONDS
    seconds_per_request: float = DEFAULT_SECONDS_PER_REQUEST
    clock: float = 0.0
    _alive: dict[bytes, float] = field(default_factory=dict)  # prefix digest -> expiry
    _tokens: dict[bytes, int] = field(default_factory=dict)  # unit digest -> tokens

    def _unit(self, value: Any) -> tuple[bytes, int]:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        tokens = self._tokens.get(digest)
        if tokens is None:
            tokens = self._tokens[digest] = count_text(text)
        return digest, tokens

    def request_history(
        self, history: Sequence[Message], tools: Sequence[dict[str, Any]] | None
    ) -> Charge:
        """Bill the request that sends `history` as pleat sends it (`request`)."""
        return self.request(provider_messages(history), tools)

    def request(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None,
        *,
        cacheable: bool = True,
    ) -> Charge:
        """Bill one request and advance the clock. An uncacheable request (one that no later
        request can share a prefix with) is sent at the plain price and stored nowhere."""
        self.clock += self.seconds_per_request
        prefixes: list[bytes] = []
        sizes: list[int] = []
        running = hashlib.blake2b(digest_size=16)
        for unit in [list(tools or []), *messages]:
            digest, tokens = self._unit(unit)
            running.update(digest)
            prefixes.append(running.copy().digest())
            sizes.append(tokens)
        total = sum(sizes)
        if not cacheable:
            return Charge(total, 0, total * self.prices.uncached)
        # Cached prefixes are prefix-closed, so the longest alive one is found by bisection.
        low, high = 0, len(prefixes)
        while low < high:
            middle = (low + high + 1) // 2
            if self._alive.get(prefixes[middle - 1], -1.0) >= self.clock:
                low = middle
            else:
                high = middle - 1
        cached = sum(sizes[:low])
        expiry = self.clock + self.lifetime
        for digest in prefixes:  # every prefix of this request is now alive (hit or written)
            self._alive[digest] = expiry
        cost = cached * self.prices.cache_read + (total - cached) * self.prices.cache_write
        return Charge(total, cached, cost)
