"""Provider failures: every litellm exception classified as one of pleat's error kinds, with one
line for the user."""

from __future__ import annotations

import asyncio
import json
import re

from agent.events import ProviderErrorKind as ErrorKind
from agent.model.litellm_door import load_litellm
from agent.model.overflow import StatedLimits, is_context_overflow, stated_limits
from agent.model.settings import ModelSettings

# A server's Retry-After is honoured up to this many seconds; longer waits become an error the
# user sees rather than a silent minute-long pause.
MAX_RETRY_AFTER = 60.0


class LLMError(Exception):
    """A classified provider failure with one line for the user."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        retry_after: float | None = None,
        limits: StatedLimits | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after
        # For a context overflow: the window and sizes the provider stated, if any.
        self.limits = limits or StatedLimits()

    @property
    def retryable(self) -> bool:
        return self.kind in ("rate_limit", "transient")


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
    litellm = load_litellm()
    text = _first_line(str(exc))
    where = settings.api_base or "the provider"
    if isinstance(exc, litellm.ContextWindowExceededError) or is_context_overflow(str(exc)):
        limits = stated_limits(str(exc))
        return LLMError("context_overflow", f"context window exceeded: {text}", limits=limits)
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
            return LLMError("config", unknown_model_message(settings.model))
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
            return LLMError("config", unknown_model_message(settings.model))
        return LLMError("bad_request", f"request refused by {where}: {text}")
    if isinstance(exc, ConnectionError | OSError):
        return LLMError("transient", f"cannot reach {where}: {text}")
    return LLMError("transient", f"{type(exc).__name__}: {text}")


def unknown_model_message(model: str) -> str:
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
