"""Token accounting: per-message counts cached by id, the provider's reported size preferred."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from agent.messages import Message
from agent.offline import prepare_offline_env

# Tokens a chat format adds around each message (role markers, separators): OpenAI documents
# 3-4 per message; 4 errs on the safe side.
PER_MESSAGE_OVERHEAD = 4
# The encoding used for every model: o200k_base is what current OpenAI models use, and for
# other providers' tokenizers it is within about 10-20%; the provider's own reported prompt
# tokens replace the estimate whenever a reply carries them.
ENCODING = "o200k_base"

_encoder_lock = threading.Lock()
_encoder: Callable[[str], int] | None = None


def _count_text() -> Callable[[str], int]:
    """tiktoken's counter, loaded on first use from the files litellm ships (no download)."""
    global _encoder
    with _encoder_lock:
        if _encoder is None:
            prepare_offline_env()
            import tiktoken

            encoding = tiktoken.get_encoding(ENCODING)
            _encoder = lambda text: len(encoding.encode_ordinary(text))  # noqa: E731
    return _encoder


def count_text(text: str) -> int:
    return _count_text()(text) if text else 0


def message_tokens(message: Message) -> int:
    """Tokens of one message as the provider would see it (content, tool calls, ids)."""
    total = PER_MESSAGE_OVERHEAD + count_text(message.content or "")
    for call in message.tool_calls:
        total += count_text(call.name) + count_text(call.arguments) + PER_MESSAGE_OVERHEAD
    if message.role == "tool" and message.name:
        total += count_text(message.name)
    return total


def payload_tokens(tools: Sequence[dict[str, Any]]) -> int:
    """Tokens of the tool schemas sent with every request."""
    return count_text(json.dumps(list(tools), sort_keys=True)) if tools else 0


class TokenLedger:
    """Context size of a live history, O(new messages) per turn.

    Each message is counted once (cached by its stable id). When the provider reports the prompt
    tokens of a request, that figure replaces the estimate for everything it covered; messages
    appended since are added from the cache.
    """

    def __init__(self, tools: Sequence[dict[str, Any]] = ()) -> None:
        self._tools = list(tools)
        self._tools_tokens: int | None = None  # counted on first use: startup loads no tokenizer
        self._counts: dict[str, int] = {}
        self._reported: tuple[int, int] | None = None  # (prompt tokens, messages sent)

    def count(self, message: Message) -> int:
        cached = self._counts.get(message.id) if message.id else None
        if cached is None:
            cached = message_tokens(message)
            if message.id:
                self._counts[message.id] = cached
        return cached

    def count_text(self, text: str) -> int:
        """Tokens of a text (not a message): what a tool output will add."""
        return count_text(text)

    def forget(self, message: Message) -> None:
        """Drop a cached count (the message's content was rewritten)."""
        self._counts.pop(message.id, None)

    @property
    def tools_tokens(self) -> int:
        if self._tools_tokens is None:
            self._tools_tokens = payload_tokens(self._tools)
        return self._tools_tokens

    def estimate(self, history: Sequence[Message]) -> int:
        """Counted size of a whole payload: tool schemas plus every message."""
        return self.tools_tokens + sum(self.count(m) for m in history)

    def report(self, prompt_tokens: int, messages_sent: int) -> None:
        """The provider said a request of `messages_sent` messages had `prompt_tokens`."""
        if prompt_tokens > 0:
            self._reported = (prompt_tokens, messages_sent)

    def reset_report(self) -> None:
        """History was rebuilt: the last report no longer describes a prefix of it."""
        self._reported = None

    def size(self, history: Sequence[Message]) -> int:
        """Best estimate of the next request's prompt tokens."""
        if self._reported is not None:
            reported, sent = self._reported
            if sent <= len(history):
                return reported + sum(self.count(m) for m in history[sent:])
        return self.estimate(history)
