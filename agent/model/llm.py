"""The one door to litellm: streaming completions with tools, usage, errors classified, retries."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

from agent.events import Retrying, ThinkingDelta
from agent.model.errors import LLMError, classify, unknown_model_message
from agent.model.litellm_door import load_litellm
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

# The key sent to an OpenAI-compatible server given by its address when no key is configured
# (no --api-key, no OPENAI_API_KEY): local servers (LM Studio, vLLM, llama.cpp, Ollama's /v1)
# ignore it, but the OpenAI client refuses to send a request without one.
NO_KEY_PLACEHOLDER = "pleat-no-key"
# Window assumed for a model litellm does not know and the user did not size with
# --context-window: small enough for most local models (Ollama and llama.cpp servers are often
# run at 32k), so pleat folds early rather than overflowing; the overflow path covers the rest.
FALLBACK_CONTEXT_WINDOW = 32_768


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


def credentialed_models(environ: Mapping[str, str]) -> dict[str, tuple[str, list[str]]]:
    """For each provider litellm knows whose key variable is set in `environ` (litellm's own
    convention: <PROVIDER>_API_KEY), that variable and litellm's chat models of the provider
    as `provider/model` strings, sorted."""
    litellm = load_litellm()
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
    litellm = load_litellm()
    try:
        _, provider, _, _ = litellm.get_llm_provider(settings.model, api_base=settings.api_base)
        return settings.model, str(provider)
    except Exception:
        if settings.api_base:
            return f"openai/{settings.model}", "openai"
        raise LLMError("config", unknown_model_message(settings.model)) from None


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
            litellm = load_litellm()
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
        litellm = load_litellm()
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
            prompt_cost, completion_cost = load_litellm().cost_per_token(
                model=self.model,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cache_read_input_tokens=usage.cached_tokens,
                cache_creation_input_tokens=usage.cache_creation_tokens,
            )
        except Exception:
            return usage
        return Usage(**{**usage.__dict__, "cost": float(prompt_cost + completion_cost)})
