"""The one door to litellm: streaming completions with tools, usage, errors classified, retries."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import random
import re
import sys
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from agent.events import ProviderErrorKind as ErrorKind
from agent.events import Retrying, ThinkingDelta
from agent.model.offline import prepare_offline_env
from agent.model.reasoning import ReasoningAssembler
from agent.model.request_shape import (
    ANSWER_TOKENS_AFTER_THINKING,
    is_claude,
    thinking_arguments,
    thinking_budget,
    with_cache_breakpoints,
    without_foreign_reasoning,
)
from agent.model.settings import (
    VISION_OFF,
    VISION_ON,
    ModelSettings,
)
from agent.model.stream_assembly import ToolCallAssembler, stream_was_cut, usage_from
from sessions.lone_surrogates import encodable
from sessions.messages import ToolCall
from sessions.usage import Usage

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
        r"exceeded max context length",  # Ollama
        r"exceeds the available context size",  # llama.cpp server
        r"longer than the model'?s context length",  # Together, Fireworks
        r"too large for model with \d+ maximum context length",  # Mistral
        r"exceed context limit",  # Anthropic, input plus max_tokens
        r"exceeds the limit of \d+",  # GitHub Copilot
    )
)


@dataclass(frozen=True)
class StatedLimits:
    """What a provider's context-overflow error says in numbers (None: not stated)."""

    window: int | None = None  # the model's context window
    requested: int | None = None  # the provider's own count of the refused request
    output: int | None = None  # output tokens it counted against the window (max_tokens)
    excess: int | None = None  # tokens over the window, when only that is said (Ollama)


# Provider wordings with their numbers, each a named-group pattern; the first that matches
# gives the limits. Numbers may carry thousands separators.
_N = r"([\d,]+)"
STATED_LIMITS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # OpenAI, vLLM: "This model's maximum context length is 16384 tokens. However, your
        # messages resulted in 18446 tokens" / "you requested 9000 tokens (8000 in the messages,
        # 1000 in the completion)"
        rf"maximum context length is (?P<window>{_N}) tokens.{{0,40}}?(?:resulted in|requested)"
        rf" (?P<requested>{_N}) tokens(?: \({_N} in the messages, (?P<output>{_N}) in the "
        r"completion\))?",
        rf"maximum context length is (?P<window>{_N})",
        # Anthropic: "input length and `max_tokens` exceed context limit: 190000 + 21333 > 200000"
        rf"exceed context limit: (?P<requested>{_N}) \+ (?P<output>{_N}) > (?P<window>{_N})",
        # Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
        rf"(?P<requested>{_N}) tokens? > (?P<window>{_N}) maximum",
        # Gemini: "The input token count (1054016) exceeds the maximum number of tokens allowed
        # (1048576)."
        rf"input token count \((?P<requested>{_N})\) exceeds the maximum number of tokens "
        rf"allowed \((?P<window>{_N})\)",
        # Ollama: "prompt too long; exceeded max context length by 4021 tokens"
        rf"exceeded max context length by (?P<excess>{_N}) tokens",
        # llama.cpp server, in the error body: "n_prompt_tokens":9000,"n_ctx":8192
        rf"n_prompt_tokens\W+(?P<requested>{_N})\W+n_ctx\W+(?P<window>{_N})",
        rf"n_ctx\W+(?P<window>{_N})",
        # Together, Fireworks: "The input (516368 tokens) is longer than the model's context
        # length (262144 tokens)."
        rf"input \((?P<requested>{_N}) tokens\) is longer than the model'?s context length "
        rf"\((?P<window>{_N})",
        # Mistral: "Prompt contains 240000 tokens ... too large for model with 128000 maximum
        # context length"
        rf"contains (?P<requested>{_N}) tokens.{{0,40}}too large for model with (?P<window>{_N})",
        # vLLM: "The prompt (total length 25938) is too long to fit into the model (context
        # length 4096)"
        rf"total length (?P<requested>{_N})\).{{0,60}}context length (?P<window>{_N})",
        # GitHub Copilot: "prompt token count of 130000 exceeds the limit of 128000"
        rf"token count of (?P<requested>{_N}) exceeds the limit of (?P<window>{_N})",
        # Generic: "context window of 32768", "context length is 8192", "context size: 4096"
        rf"context (?:window|length|size)\W{{1,3}}(?:is |of )?(?P<window>{_N})",
    )
)
# Stated numbers below this are not windows (a stray figure matched by a generic wording).
MIN_STATED_WINDOW = 1_024


def stated_limits(text: str) -> StatedLimits:
    """The numbers a provider's overflow error states, from the first wording that matches."""
    for pattern in STATED_LIMITS:
        match = pattern.search(text)
        if match is None:
            continue
        found = {
            key: int(value.replace(",", ""))
            for key, value in match.groupdict().items()
            if value is not None
        }
        window = found.get("window")
        if window is not None and window < MIN_STATED_WINDOW:
            continue
        return StatedLimits(
            window=window,
            requested=found.get("requested"),
            output=found.get("output"),
            excess=found.get("excess"),
        )
    return StatedLimits()


# A server's Retry-After is honoured up to this many seconds; longer waits become an error the
# user sees rather than a silent minute-long pause.
MAX_RETRY_AFTER = 60.0
# The key sent to an OpenAI-compatible server given by its address when no key is configured
# (no --api-key, no OPENAI_API_KEY): local servers (LM Studio, vLLM, llama.cpp, Ollama's /v1)
# ignore it, but the OpenAI client refuses to send a request without one.
NO_KEY_PLACEHOLDER = "pleat-no-key"
# Window assumed for a model litellm does not know and the user did not size with
# --context-window: small enough for most local models (Ollama and llama.cpp servers are often
# run at 32k), so pleat folds early rather than overflowing; the overflow path covers the rest.
FALLBACK_CONTEXT_WINDOW = 32_768


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


@dataclass(frozen=True)
class LLMReply:
    """A complete assistant reply, assembled from the stream."""

    text: str
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    finish_reason: str | None
    # The reply's reasoning, to be sent back with it exactly (agent/model/reasoning.py).
    thinking_blocks: tuple[dict[str, Any], ...] = ()
    reasoning_content: str | None = None


# The request parameter that tells litellm (1.106.2) not to look for MCP tools its proxy would
# serve (below, in LLM._stream_once).
SKIP_MCP_GATEWAY = "_skip_mcp_handler"
# litellm's logger, and the variable that sets its level. Left alone it writes tracebacks to
# stderr for what pleat reports itself in one line, or that is no failure at all: a reply whose
# tool call holds a lone surrogate breaks only litellm's own cost logging of the stream.
LITELLM_LOGGER = "LiteLLM"
LITELLM_LOG = "LITELLM_LOG"


def _litellm() -> Any:
    """Import litellm on first use (about 4 s and 170 MiB), offline and silent."""
    prepare_offline_env()
    first_import = "litellm" not in sys.modules
    import litellm

    if first_import:
        # litellm's import leaves about 300,000 long-lived objects: frozen out of the
        # collector, a full collection no longer scans them (0.1 s each), nor does the one the
        # interpreter makes at exit, which took 0.6-0.9 s of every `pleat -p` run (more than
        # its reply from a local server: bench/cold_start.py). Once per process (the TUI
        # freezes after its own warm-up import): a later freeze would pin whatever garbage is
        # around then.
        gc.freeze()
    litellm.suppress_debug_info = True  # it prints to stdout on errors, which would corrupt a TUI
    litellm.drop_params = True  # providers that lack an optional parameter get the call anyway
    if LITELLM_LOG not in os.environ:  # unless the user asks for litellm's own log
        logging.getLogger(LITELLM_LOGGER).setLevel(logging.CRITICAL)
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


def credentialed_models(environ: Mapping[str, str]) -> dict[str, tuple[str, list[str]]]:
    """For each provider litellm knows whose key variable is set in `environ` (litellm's own
    convention: <PROVIDER>_API_KEY), that variable and litellm's chat models of the provider
    as `provider/model` strings, sorted."""
    litellm = _litellm()
    found: dict[str, tuple[str, list[str]]] = {}
    for entry in litellm.provider_list:
        provider = str(getattr(entry, "value", entry))
        keys = dict.fromkeys(
            f"{name.upper()}_API_KEY" for name in (provider, provider.replace("_", ""))
        )
        key = next((k for k in keys if environ.get(k, "").strip()), None)
        if key is None:
            continue
        models = set()
        for model in litellm.models_by_provider.get(provider, ()):
            info = litellm.model_cost.get(model) or litellm.model_cost.get(f"{provider}/{model}")
            if isinstance(info, dict) and info.get("mode") == "chat":
                models.add(model if model.startswith(f"{provider}/") else f"{provider}/{model}")
        found[provider] = (key, sorted(models))
    return found


def resolve_model(settings: ModelSettings) -> tuple[str, str]:
    """(the model string litellm gets, the provider it resolves). With an api_base and no known
    provider, the server is taken to be OpenAI-compatible (`openai/<model>`). Unknown models are
    a config error."""
    litellm = _litellm()
    try:
        _, provider, _, _ = litellm.get_llm_provider(settings.model, api_base=settings.api_base)
        return settings.model, str(provider)
    except Exception:
        if settings.api_base:
            return f"openai/{settings.model}", "openai"
        raise LLMError("config", _unknown_model_message(settings.model)) from None


class LLM:
    """Streams one model call at a time; retries rate limits and transient failures."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings
        self._model: str | None = None
        self._provider = ""
        self._facts: dict[str, Any] | None = None  # litellm's model facts, once looked up

    @property
    def model(self) -> str:
        return self._model or self.settings.model

    def _resolve(self) -> str:
        if self._model is None:
            self._model, self._provider = resolve_model(self.settings)
        return self._model

    @property
    def claude(self) -> bool:
        """A Claude model by litellm's provider (cache breakpoints, max_tokens required)."""
        return is_claude(self._resolve(), self._provider)

    def _model_facts(self) -> dict[str, Any]:
        """litellm's facts about this model ({} when it does not know it), looked up once."""
        if self._facts is None:
            self._facts = {}
            litellm = _litellm()
            try:
                self._resolve()
            except LLMError:
                return self._facts  # the model call itself reports the unknown model
            for name in (self._model, self.settings.model):
                try:
                    self._facts = dict(litellm.get_model_info(name))
                    break
                except Exception:
                    continue
        return self._facts

    def _model_info(self, *keys: str) -> int | None:
        """The first of `keys` litellm's model facts give for this model (None: unknown)."""
        facts = self._model_facts()
        for key in keys:
            if facts.get(key):
                return int(facts[key])
        return None

    def image_support(self) -> str | None:
        """None when images can be sent to this model, else why not (one line). The `vision`
        setting decides when it is true or false; "auto" asks litellm's model facts."""
        vision = self.settings.vision
        if vision == VISION_ON:
            return None
        if vision == VISION_OFF:
            return "images are turned off (vision = false)"
        facts = self._model_facts()
        if facts.get("supports_vision"):
            return None
        model = self.settings.model
        if not facts:
            return (
                f"litellm does not know whether {model} accepts images (set vision = true in "
                "config.toml or PLEAT_VISION=true if it does)"
            )
        return (
            f"{model} does not accept images, per litellm's model facts (vision = true overrides)"
        )

    def context_window(self) -> int:
        """The model's input window from litellm's model facts, else the fallback."""
        return self._model_info("max_input_tokens", "max_tokens") or FALLBACK_CONTEXT_WINDOW

    def reply_limits(self) -> tuple[int, int | None]:
        """(the least output a reply needs, the most the model can give): with thinking on a
        Claude model, its budget and room for the answer after it (Anthropic requires
        max_tokens above the budget); the model's output limit when litellm knows it."""
        budget = thinking_budget(self.settings.thinking)
        floor = budget + ANSWER_TOKENS_AFTER_THINKING if budget and self.claude else 0
        return floor, self._model_info("max_output_tokens")

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        max_tokens: int | None = None,
    ) -> AsyncIterator[str | ThinkingDelta | Retrying | LLMReply]:
        """Yield text deltas (str), reasoning deltas, Retrying notices, and finally one LLMReply.
        `max_tokens` is the output the caller keeps free in the window; it is sent to providers
        that need one (Claude: litellm would otherwise ask for the model's whole output limit).

        A failure before any text arrived is retried (bounded, with backoff); a failure after
        text was shown is raised, since a retry would show the same text twice.
        """
        attempt = 0
        while True:
            shown_text = False
            try:
                async for item in self._stream_once(messages, tools, max_tokens):
                    if isinstance(item, str | ThinkingDelta):
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
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        max_tokens: int | None,
    ) -> AsyncIterator[str | ThinkingDelta | LLMReply]:
        litellm = _litellm()
        model, claude = self._resolve(), self.claude
        messages = without_foreign_reasoning(messages, claude)
        if claude:
            messages, tools = with_cache_breakpoints(messages, tools)
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": self.settings.timeout,
            "num_retries": 0,  # retries are ours (above), so they are bounded and reported
            "max_retries": 0,
            # litellm's gateway for MCP tools its proxy hosts: pleat's tools (its MCP servers'
            # too) are plain functions, which never name a gateway, yet looking costs the first
            # call of every process 0.6 s of imports (the mcp SDK, litellm's proxy). An internal
            # parameter of litellm's, which its completion() takes out of the arguments first
            # thing; tests/e2e/test_llm.py checks that it never reaches the server.
            SKIP_MCP_GATEWAY: True,
        }
        if tools:
            kwargs["tools"] = tools
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
        if self.settings.api_key:
            kwargs["api_key"] = self.settings.api_key
        elif self.settings.api_base and self._provider == "openai":
            kwargs["api_key"] = os.environ.get("OPENAI_API_KEY") or NO_KEY_PLACEHOLDER
        if claude and max_tokens:
            kwargs["max_tokens"] = max_tokens
        kwargs.update(thinking_arguments(self.settings.thinking))
        started = time.monotonic()
        response = await litellm.acompletion(**kwargs)
        text: list[str] = []
        calls = ToolCallAssembler()
        reasoning = ReasoningAssembler()
        usage: Any = None
        finish: str | None = None
        async for chunk in response:
            if getattr(chunk, "usage", None):
                usage = chunk.usage
            for choice in getattr(chunk, "choices", None) or ():
                delta = choice.delta
                if thought := reasoning.add(delta):
                    yield ThinkingDelta(thought)
                if content := getattr(delta, "content", None):
                    piece = encodable(content)  # a lone surrogate could not be sent back
                    text.append(piece)
                    yield piece
                for tool_delta in getattr(delta, "tool_calls", None) or ():
                    calls.add(tool_delta)
                if choice.finish_reason:
                    finish = choice.finish_reason
        if stream_was_cut(response):
            raise LLMError("transient", "the provider closed the stream before the reply ended")
        blocks, reasoning_text = reasoning.result()
        yield LLMReply(
            text="".join(text),
            tool_calls=calls.calls(),
            usage=self._with_cost(usage_from(usage, time.monotonic() - started)),
            finish_reason=finish,
            thinking_blocks=blocks,
            reasoning_content=reasoning_text,
        )

    def input_cost(self, prompt_tokens: int) -> float | None:
        """USD the input of a request of `prompt_tokens` costs, none from the cache; None when
        litellm does not know this model's prices."""
        return self._with_cost(Usage(prompt_tokens=prompt_tokens)).cost

    def _with_cost(self, usage: Usage) -> Usage:
        """Add the call's price when litellm knows this model's prices: cache reads at their
        price, cache writes at theirs (Anthropic bills them 1.25 times plain input)."""
        if not usage.prompt_tokens:
            return usage
        try:
            prompt_cost, completion_cost = _litellm().cost_per_token(
                model=self.model,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cache_read_input_tokens=usage.cached_tokens,
                cache_creation_input_tokens=usage.cache_creation_tokens,
            )
        except Exception:
            return usage
        return Usage(**{**usage.__dict__, "cost": float(prompt_cost + completion_cost)})
