"""Token accounting: per-message counts cached by id, the provider's reported size preferred."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent.images.tokens import image_tokens
from agent.model.offline import prepare_offline_env
from sessions.messages import Message

# Tokens a chat format adds around each message (role markers, separators): OpenAI documents
# 3-4 per message; 4 errs on the safe side.
PER_MESSAGE_OVERHEAD = 4
# The encoding used for every model: o200k_base is what current OpenAI models use, and for
# other providers' tokenizers it is within about 10-20%; the provider's own reported prompt
# tokens replace the estimate whenever a reply carries them.
ENCODING = "o200k_base"

# The largest calibration accepted: a provider counting more than 2.5 times tiktoken's figure
# is reporting something else (images, a proxy's overhead), not a different tokenizer.
MAX_RATIO = 2.5

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


def utf8_bytes(text: str) -> int:
    """At least count_text(text), without the tokenizer: every token stands for one byte or more
    of the text's UTF-8 (a lone surrogate counted as the three bytes of the character that
    replaces it)."""
    return len(text.encode("utf-8", "surrogatepass"))


def message_tokens(message: Message, count: Callable[[str], int] = count_text) -> int:
    """Tokens of one message as the provider would see it (content, tool calls, ids), each text
    measured by `count` (utf8_bytes: a bound found without the tokenizer)."""
    total = PER_MESSAGE_OVERHEAD + count(message.content or "")
    for call in message.tool_calls:
        total += count(call.name) + count(call.arguments) + PER_MESSAGE_OVERHEAD
    if message.role == "tool" and message.name:
        total += count(message.name)
    for image in message.images:  # its label and its pixels (counted even when a note is sent)
        total += count(f"[image {image.label()}]") + image_tokens(image.width, image.height)
    # Reasoning goes back only with replies that called tools (agent/model/request_shape.py), and
    # providers count it only there (Anthropic drops earlier turns' thinking): counted there.
    if not message.tool_calls:
        return total
    if message.thinking_blocks:
        total += sum(
            count(str(b.get("thinking") or b.get("data") or "")) for b in message.thinking_blocks
        )
    elif message.reasoning_content:
        total += count(message.reasoning_content)
    return total


def payload_tokens(
    tools: Sequence[dict[str, Any]], count: Callable[[str], int] = count_text
) -> int:
    """Tokens of the tool schemas sent with every request, each text measured by `count`."""
    return count(json.dumps(list(tools), sort_keys=True)) if tools else 0


@dataclass(frozen=True)
class _Report:
    """A provider's report not yet taken into the calibration: the messages it covered beyond
    the prefix already summed, which are counted when the calibration is next needed."""

    prompt_tokens: int
    sent: int
    last_id: str  # of history[sent - 1]
    counted: int  # local tokens of history[:begin], the prefix summed before
    messages: tuple[Message, ...]  # history[begin:sent]


class TokenLedger:
    """Context size of a live history, O(new messages) per turn, in the provider's tokens.

    Each message is counted once (cached by its stable id) with the local tokenizer. When the
    provider reports the prompt tokens of a request, that figure replaces the estimate for
    everything it covered, and the ratio of its count to ours calibrates every later estimate
    (providers' tokenizers count the same text 10-30% differently); messages appended since
    are added from the cache, scaled by that ratio.
    """

    def __init__(self, tools: Sequence[dict[str, Any]] = ()) -> None:
        self._tools = list(tools)
        self._tools_tokens: int | None = None  # counted on first use: startup loads no tokenizer
        self._counts: dict[str, int] = {}
        self._reported: tuple[int, int] | None = None  # (prompt tokens, messages sent)
        # The provider's tokens per local token, learned from its reports; never below 1, so a
        # provider that counts less than tiktoken does not make pleat less careful.
        self._ratio = 1.0
        # (messages, id of the last one, their local count): the last reported prefix, so the
        # next report extends the sum instead of recounting the history.
        self._prefix: tuple[int, str, int] | None = None
        # The last report, until the calibration is needed: a run that ends after its reply
        # (`pleat -p`) never loads the tokenizer for it.
        self._pending: _Report | None = None

    @property
    def ratio(self) -> float:
        self._settle()
        return self._ratio

    @ratio.setter
    def ratio(self, value: float) -> None:
        self._settle()
        self._ratio = value

    def count(self, message: Message) -> int:
        """Tokens of one message as the provider will likely count them."""
        return self.scaled(self.local_count(message))

    def local_count(self, message: Message) -> int:
        """Tokens of one message by the local tokenizer (cached by id)."""
        cached = self._counts.get(message.id) if message.id else None
        if cached is None:
            cached = message_tokens(message)
            if message.id:
                self._counts[message.id] = cached
        return cached

    def count_text(self, text: str) -> int:
        """Tokens of a text (not a message) as the provider will likely count them: what a tool
        output will add."""
        return self.scaled(count_text(text))

    def scaled(self, local: int) -> int:
        """A local count in the provider's tokens."""
        return local if self.ratio == 1.0 else round(local * self.ratio)

    def forget(self, message: Message) -> None:
        """Drop a cached count (the message's content was rewritten)."""
        self._settle()  # a waiting report covers the message as it was
        self._counts.pop(message.id, None)

    def set_tools(self, tools: Sequence[dict[str, Any]]) -> None:
        """The tool schemas changed (MCP tools joined): they are counted again, and the last
        report, which did not carry them, no longer gives the next request's size."""
        self._settle()  # a waiting report was made with the tools as they were
        self._tools = list(tools)
        self._tools_tokens = None
        self.reset_report()

    @property
    def tools_tokens(self) -> int:
        if self._tools_tokens is None:
            self._tools_tokens = payload_tokens(self._tools)
        return self._tools_tokens

    def local_estimate(self, history: Sequence[Message]) -> int:
        """Local count of a whole payload: tool schemas plus every message."""
        return self.tools_tokens + sum(self.local_count(m) for m in history)

    def estimate(self, history: Sequence[Message]) -> int:
        """Estimated size of a whole payload in the provider's tokens."""
        return self.scaled(self.local_estimate(history))

    def calibrate(self, provider_tokens: int, local_tokens: int) -> None:
        """The provider counted `provider_tokens` for what we count as `local_tokens`."""
        if provider_tokens > 0 and local_tokens > 0:
            self.ratio = min(MAX_RATIO, max(1.0, provider_tokens / local_tokens))

    def report(self, prompt_tokens: int, history: Sequence[Message], sent: int) -> None:
        """The provider said the request of history[:sent] had `prompt_tokens`. The messages it
        covered are counted, and the calibration made, when next needed (_settle)."""
        if prompt_tokens <= 0 or sent <= 0:
            return
        self._settle()
        self._reported = (prompt_tokens, sent)
        total = 0
        begin = 0
        if self._prefix is not None:
            length, last_id, counted = self._prefix
            if length <= sent and history[length - 1].id == last_id:
                total, begin = counted, length
        last_id = history[sent - 1].id
        self._pending = _Report(prompt_tokens, sent, last_id, total, tuple(history[begin:sent]))

    def _settle(self) -> None:
        """Take the waiting report into the calibration: the prefix it covered summed (the
        next report extends that sum), the provider's count against ours."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        total = pending.counted + sum(self.local_count(m) for m in pending.messages)
        self._prefix = (pending.sent, pending.last_id, total)
        self.calibrate(pending.prompt_tokens, self.tools_tokens + total)

    def reset_report(self) -> None:
        """History was rebuilt: the last report no longer describes a prefix of it."""
        self._settle()  # its calibration stands
        self._reported = None
        self._prefix = None

    def size(self, history: Sequence[Message]) -> int:
        """Best estimate of the next request's prompt tokens."""
        if self._reported is not None:
            reported, sent = self._reported
            if sent <= len(history):
                return reported + self.scaled(sum(self.local_count(m) for m in history[sent:]))
        return self.estimate(history)

    def size_at_most(self, history: Sequence[Message]) -> int:
        """At least size(history), found without the tokenizer: what is not counted yet is
        taken at its UTF-8 bytes (utf8_bytes), scaled by the most the calibration could be when
        a report waits. Below a limit, so is the size: a check against a limit far away (the
        first request of a session: a few thousand tokens in a window of tens of thousands)
        then needs no tokenizer (about 0.3 s and 75 MiB to load)."""
        ratio = MAX_RATIO if self._pending is not None else self._ratio
        if self._reported is not None:
            reported, sent = self._reported
            if sent <= len(history):
                return reported + _scaled_up(sum(map(self._at_most, history[sent:])), ratio)
        tools = self._tools_tokens
        if tools is None:
            tools = payload_tokens(self._tools, utf8_bytes)
        return _scaled_up(tools + sum(map(self._at_most, history)), ratio)

    def _at_most(self, message: Message) -> int:
        """The message's local count when known, else its bound."""
        cached = self._counts.get(message.id) if message.id else None
        return cached if cached is not None else message_tokens(message, utf8_bytes)


def _scaled_up(local: int, ratio: float) -> int:
    """A local count in the provider's tokens, rounded up (at least what scaled() gives)."""
    return local if ratio == 1.0 else math.ceil(local * ratio)
