"""A provider's context-overflow error: its wordings recognised, the numbers it states read."""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def is_context_overflow(text: str) -> bool:
    return any(p.search(text) for p in CONTEXT_OVERFLOW_PATTERNS)
