"""The one door to litellm: streaming completions with tools, usage, errors classified, retries."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.events import Retrying, Usage
from agent.messages import ToolCall
from agent.offline import prepare_offline_env

ErrorKind = Literal["context_overflow", "rate_limit", "transient", "auth", "config", "bad_request"]

# Provider messages that mean "the prompt does not fit", for the providers and proxies whose
# errors litellm does not map to ContextWindowExceededError (Anthropic, OpenAI, Gemini, vLLM,
# Ollama and llama.cpp wordings).
CONTEXT_OVERFLOW_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"prompt is too long",
        r"maximum context length",
        r"context_length_exceeded",
        r"context length exceeded",
        r"exceeds? (the )?(model'?s? )?context (window|length|size)",
        r"input (is )?too long",
        r"too many (input )?tokens",
        r"tokens? .{0,40}exceed",
        r"prompt .{0,40}exceeds? .{0,20}limit",
        r"reduce the (length|size) of the (messages|prompt|input)",
        r"requested \d+ tokens.{0,40}context",
    )
)

# Retries for rate limits and transient failures: 3 tries after the first, doubling from 1 s,
# ride out a provider's brief hiccup (about 7 s in all) without making a dead server look alive.
DEFAULT_MAX_RETRIES = 3
DEFAULT_RETRY_BASE_DELAY = 1.0
# A server's Retry-After is honoured up to this many seconds; longer waits become an error the
# user sees rather than a silent minute-long pause.
MAX_RETRY_AFTER = 60.0
# Seconds without a byte from the provider before a request is abandoned as a transient
# failure: long enough for a big model's slow first token, short enough to notice a hang.
DEFAULT_REQUEST_TIMEOUT = 600.0
# Window assumed for a model litellm does not know and the user did not size with
# --context-window: small enough for most local models (Ollama and llama.cpp servers are often
# run at 32k), so pleat folds early rather than overflowing; the overflow path covers the rest.
FALLBACK_CONTEXT_WINDOW = 32_768


class LLMError(Exception):
    """A classified provider failure with one line for the user."""

    def __init__(self, kind: ErrorKind, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in ("rate_limit", "transient")


@dataclass(frozen=True)
class LLMReply:
    """A complete assistant reply, assembled from the stream."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    finish_reason: str | None


@dataclass(frozen=True)
class ModelSettings:
    """Where and how to call the model. The api_key is held in memory only, never written."""

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    retry_base_delay: float = DEFAULT_RETRY_BASE_DELAY


def _litellm() -> Any:
    """Import litellm on first use (about 4 s and 170 MiB), offline and silent."""
    prepare_offline_env()
    import litellm

    litellm.suppress_debug_info = True  # it prints to stdout on errors, which would corrupt a TUI
    litellm.drop_params = True  # providers that lack an optional parameter get the call anyway
    return litellm


def is_context_overflow(text: str) -> bool:
    return any(p.search(text) for p in CONTEXT_OVERFLOW_PATTERNS)


def _first_line(text: str, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    # litellm prefixes the provider's words with exception names ("litellm.BadRequestError:
    # ContextWindowExceededError: OpenAIException - ..."); the user needs only the words.
    return _EXCEPTION_PREFIX.sub("", line)[:limit] or line[:limit]


_EXCEPTION_PREFIX = re.compile(r"^((litellm\.)?[A-Za-z]+(Error|Exception)( -|:) ?)+")
# Links followed down an exception's chain (litellm wraps the real cause two or three deep).
MAX_CAUSE_DEPTH = 8


def _root_json_error(exc: BaseException) -> json.JSONDecodeError | None:
    """The JSON decoding error behind a litellm exception (a stream whose data lines are not
    JSON: a broken proxy), if that is what it is."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < MAX_CAUSE_DEPTH:
        if isinstance(current, json.JSONDecodeError):
            return current
        seen.add(id(current))
        original = getattr(current, "original_exception", None)
        nxt = original if isinstance(original, BaseException) else None
        current = nxt or current.__cause__ or current.__context__
    return None


def classify(exc: BaseException, settings: ModelSettings) -> LLMError:
    """Map any exception from litellm to one of pleat's error kinds."""
    if isinstance(exc, LLMError):
        return exc
    litellm = _litellm()
    text = _first_line(str(exc))
    where = settings.api_base or "the provider"
    if isinstance(exc, litellm.ContextWindowExceededError) or is_context_overflow(str(exc)):
        return LLMError("context_overflow", f"context window exceeded: {text}")
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        return LLMError(
            "auth",
            f"authentication failed at {where} for model {settings.model}: check --api-key "
            f"or the provider's API key variable ({text})",
        )
    if isinstance(exc, litellm.NotFoundError):
        return LLMError("config", f"model {settings.model!r} not found at {where}: {text}")
    if isinstance(exc, litellm.RateLimitError):
        return LLMError("rate_limit", f"rate limited by {where}: {text}", _retry_after(exc))
    if isinstance(exc, litellm.Timeout | asyncio.TimeoutError):
        return LLMError("transient", f"no answer from {where} within {settings.timeout:g} s")
    if (bad_json := _root_json_error(exc)) is not None:
        # Retried like a server error: a garbled stream is usually a proxy's passing fault.
        return LLMError(
            "transient",
            f"malformed reply from {where}: the stream held invalid JSON ({bad_json.msg})",
        )
    if isinstance(exc, litellm.APIConnectionError) or text.lower().startswith("connection error"):
        if "provider not provided" in text.lower() or "llm provider" in text.lower():
            return LLMError("config", _unknown_model_message(settings.model))
        return LLMError("transient", f"cannot reach {where}: {text}")
    if isinstance(
        exc,
        litellm.InternalServerError
        | litellm.ServiceUnavailableError
        | litellm.BadGatewayError
        | litellm.APIError,
    ):
        return LLMError("transient", f"server error from {where}: {text}")
    if isinstance(exc, litellm.BadRequestError):
        if "provider not provided" in text.lower():
            return LLMError("config", _unknown_model_message(settings.model))
        return LLMError("bad_request", f"request refused by {where}: {text}")
    if isinstance(exc, ConnectionError | OSError):
        return LLMError("transient", f"cannot reach {where}: {text}")
    return LLMError("transient", f"{type(exc).__name__}: {text}")


def _unknown_model_message(model: str) -> str:
    return (
        f"unknown model {model!r}: use a litellm model string such as openai/gpt-4o, "
        "anthropic/claude-sonnet-4-5 or ollama/llama3, or pass --api-base for an "
        "OpenAI-compatible server"
    )


def _retry_after(exc: BaseException) -> float | None:
    # litellm keeps the provider's headers on the exception; its `response` is a stand-in.
    headers = getattr(exc, "litellm_response_headers", None) or {}
    try:
        value = float(headers.get("retry-after", ""))
    except (TypeError, ValueError):
        return None
    return min(max(value, 0.0), MAX_RETRY_AFTER)


def resolve_model(settings: ModelSettings) -> str:
    """The model string litellm gets: with an api_base and no known provider prefix, the server
    is taken to be OpenAI-compatible (`openai/<model>`). Unknown models are a config error."""
    litellm = _litellm()
    try:
        litellm.get_llm_provider(settings.model, api_base=settings.api_base)
        return settings.model
    except Exception:
        if settings.api_base:
            return f"openai/{settings.model}"
        raise LLMError("config", _unknown_model_message(settings.model)) from None


def usage_from(raw: Any) -> Usage:
    """Usage from a litellm usage object: OpenAI cached tokens, Anthropic cache read/creation."""
    if raw is None:
        return Usage()

    def get(obj: Any, name: str) -> int:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        return int(value or 0)

    details = (
        raw.get("prompt_tokens_details")
        if isinstance(raw, dict)
        else getattr(raw, "prompt_tokens_details", None)
    )
    cached = get(details, "cached_tokens") if details is not None else 0
    cached = cached or get(raw, "cache_read_input_tokens")
    return Usage(
        prompt_tokens=get(raw, "prompt_tokens"),
        completion_tokens=get(raw, "completion_tokens"),
        cached_tokens=cached,
        cache_creation_tokens=get(raw, "cache_creation_input_tokens"),
    )


class _ToolCallAssembler:
    """Joins streamed tool-call deltas (id and name first, arguments in pieces) by index."""

    def __init__(self) -> None:
        self._parts: dict[int, dict[str, str]] = {}

    def add(self, delta: Any) -> None:
        index = getattr(delta, "index", None)
        if index is None:
            index = len(self._parts)
        part = self._parts.setdefault(index, {"id": "", "name": "", "arguments": ""})
        if getattr(delta, "id", None):
            part["id"] = delta.id
        function = getattr(delta, "function", None)
        if function is not None:
            if getattr(function, "name", None):
                part["name"] = function.name
            if getattr(function, "arguments", None):
                part["arguments"] += function.arguments

    def calls(self) -> tuple[ToolCall, ...]:
        out = []
        for index in sorted(self._parts):
            part = self._parts[index]
            call_id = part["id"] or f"call_pleat_{index}"
            out.append(ToolCall(call_id, part["name"], part["arguments"]))
        return tuple(out)


# Providers that cache only up to explicit breakpoints (Anthropic's cache_control, also when
# reached through Bedrock or Vertex); OpenAI-style providers cache prefixes by themselves.
HOSTS_OF_CLAUDE = ("bedrock/", "vertex_ai/")
# Breakpoints placed: the system prompt and the last two messages. Anthropic allows four and
# looks back up to 20 blocks from each for an earlier cached prefix, so the next request (and
# the compression call, which only appends the instruction) finds this one's prefix.
TRAILING_BREAKPOINTS = 2


def needs_cache_breakpoints(model: str) -> bool:
    return model.startswith("anthropic/") or (
        model.startswith(HOSTS_OF_CLAUDE) and "claude" in model
    )


def with_cache_breakpoints(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of `messages` with cache_control on the system message and the last messages
    that carry text (litellm passes these through to Anthropic's API)."""
    marked = [dict(m) for m in messages]
    targets = [0] if marked and marked[0]["role"] == "system" else []
    trailing = [
        i for i, m in enumerate(marked) if isinstance(m.get("content"), str) and m["content"]
    ]
    targets += [i for i in trailing[-TRAILING_BREAKPOINTS:] if i not in targets]
    for index in targets:
        text = marked[index]["content"]
        if isinstance(text, str) and text:
            marked[index]["content"] = [
                {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}
            ]
    return marked


def _stream_was_cut(response: Any) -> bool:
    """True when the stream ended without the provider's finish reason (a dropped connection:
    the SSE client just stops, and litellm would report a normal "stop"). A stream that got as
    far as the provider's usage chunk (sent last, after the finish) was not cut: it was a
    complete reply with no choices in it, which the caller reports as an empty reply."""
    if not hasattr(response, "received_finish_reason"):
        return False
    if response.received_finish_reason or response.intermittent_finish_reason:
        return False
    # litellm keeps the provider's chunks; only a chunk the provider sent carries usage there.
    return not any(getattr(chunk, "usage", None) for chunk in getattr(response, "chunks", ()))


class LLM:
    """Streams one model call at a time; retries rate limits and transient failures."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._model: str | None = None

    @property
    def model(self) -> str:
        return self._model or self.settings.model

    def context_window(self) -> int:
        """The model's input window from litellm's model facts, else the fallback."""
        litellm = _litellm()
        try:
            if self._model is None:
                self._model = resolve_model(self.settings)
        except LLMError:
            return FALLBACK_CONTEXT_WINDOW  # the model call itself reports the unknown model
        for name in (self._model, self.settings.model):
            try:
                info = litellm.get_model_info(name)
            except Exception:
                continue
            window = info.get("max_input_tokens") or info.get("max_tokens")
            if window:
                return int(window)
        return FALLBACK_CONTEXT_WINDOW

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> AsyncIterator[str | Retrying | LLMReply]:
        """Yield text deltas (str), Retrying notices, and finally one LLMReply.

        A failure before any text arrived is retried (bounded, with backoff); a failure after
        text was shown is raised, since a retry would show the same text twice.
        """
        attempt = 0
        while True:
            shown_text = False
            try:
                async for item in self._stream_once(messages, tools):
                    if isinstance(item, str):
                        shown_text = True
                    yield item
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                error = classify(exc, self.settings)
                if shown_text and error.retryable:
                    raise LLMError(
                        error.kind, f"reply cut off mid-stream: {error.message}"
                    ) from exc
                if not error.retryable:
                    raise error from exc
                if attempt >= self.settings.max_retries:
                    if attempt:  # say the failure outlasted the retries, not just one try
                        error = LLMError(
                            error.kind, f"{error.message} (gave up after {attempt + 1} tries)"
                        )
                    raise error from exc
                attempt += 1
                delay = error.retry_after
                if delay is None:
                    base = self.settings.retry_base_delay * 2 ** (attempt - 1)
                    delay = base * (1 + random.random() / 4)  # jitter spreads retrying clients
                yield Retrying(attempt=attempt, delay=delay, reason=error.message)
                await asyncio.sleep(delay)

    async def _stream_once(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> AsyncIterator[str | LLMReply]:
        litellm = _litellm()
        if self._model is None:
            self._model = resolve_model(self.settings)
        if needs_cache_breakpoints(self._model):
            messages = with_cache_breakpoints(messages)
        kwargs: dict[str, Any] = {
            "model": self._model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": self.settings.timeout,
            "num_retries": 0,  # retries are ours (above), so they are bounded and reported
            "max_retries": 0,
        }
        if tools:
            kwargs["tools"] = tools
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
        if self.settings.api_key:
            kwargs["api_key"] = self.settings.api_key
        response = await litellm.acompletion(**kwargs)
        text: list[str] = []
        calls = _ToolCallAssembler()
        usage: Any = None
        finish: str | None = None
        async for chunk in response:
            if getattr(chunk, "usage", None):
                usage = chunk.usage
            for choice in getattr(chunk, "choices", None) or ():
                delta = choice.delta
                if getattr(delta, "content", None):
                    text.append(delta.content)
                    yield delta.content
                for tool_delta in getattr(delta, "tool_calls", None) or ():
                    calls.add(tool_delta)
                if choice.finish_reason:
                    finish = choice.finish_reason
        if _stream_was_cut(response):
            raise LLMError("transient", "the provider closed the stream before the reply ended")
        yield LLMReply(
            text="".join(text),
            tool_calls=calls.calls(),
            usage=self._with_cost(usage_from(usage)),
            finish_reason=finish,
        )

    def _with_cost(self, usage: Usage) -> Usage:
        """Add the call's price when litellm knows this model's prices."""
        if not usage.prompt_tokens:
            return usage
        try:
            prompt_cost, completion_cost = _litellm().cost_per_token(
                model=self.model,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cache_read_input_tokens=usage.cached_tokens,
            )
        except Exception:
            return usage
        return Usage(**{**usage.__dict__, "cost": float(prompt_cost + completion_cost)})
