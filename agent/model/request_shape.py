"""A request shaped for the provider litellm resolves: cache breakpoints, output cap, reasoning.

Claude models (Anthropic's API, or through Bedrock, Vertex AI or OpenRouter) cache only up to
explicit breakpoints and require max_tokens; everything else caches prefixes by itself. Which
family a model is in comes from litellm's provider resolution, never from the model string's
prefix (a bare `claude-sonnet-4-5` is Anthropic too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# litellm providers that serve Claude models with Anthropic's caching and max_tokens rules.
CLAUDE_HOSTS = frozenset(
    {"bedrock", "bedrock_converse", "vertex_ai", "vertex_ai_beta", "openrouter"}
)
# What marks a cache breakpoint (litellm passes it through as Anthropic's cache_control).
EPHEMERAL = {"type": "ephemeral"}
# The `thinking` setting's levels, passed as litellm's reasoning_effort; the token budgets are
# the ones litellm gives Anthropic for each level (its DEFAULT_REASONING_EFFORT_*_BUDGET).
THINKING_LEVELS = {"low": 1_024, "medium": 2_048, "high": 4_096}
THINKING_OFF = "off"
# Output tokens kept for the answer on top of a thinking budget (Anthropic requires max_tokens
# above the budget; the answer itself needs room after the thinking).
ANSWER_TOKENS_AFTER_THINKING = 4_096


def is_claude(model: str, provider: str) -> bool:
    """A Claude model, by the provider litellm resolved for it."""
    return provider == "anthropic" or (provider in CLAUDE_HOSTS and "claude" in model.lower())


def thinking_budget(setting: str) -> int:
    """Tokens the `thinking` setting lets a reply think (0 when off)."""
    if setting in THINKING_LEVELS:
        return THINKING_LEVELS[setting]
    return int(setting) if setting.isdigit() else 0


def thinking_arguments(setting: str) -> dict[str, Any]:
    """litellm arguments for the `thinking` setting: a level as reasoning_effort (litellm maps
    it per provider), a number as an explicit thinking budget; nothing when off."""
    if setting in THINKING_LEVELS:
        return {"reasoning_effort": setting}
    if setting.isdigit():
        return {"thinking": {"type": "enabled", "budget_tokens": int(setting)}}
    return {}


def previous_request_end(messages: Sequence[dict[str, Any]]) -> int | None:
    """Index of the last message of the previous request: the one before the newest assistant
    message (what came after it, its tool results or a new prompt or an instruction, is new)."""
    for index in range(len(messages) - 1, 0, -1):
        if messages[index]["role"] == "assistant":
            return index - 1 if index - 1 > 0 else None
    return None


def with_cache_breakpoints(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """Copies of `messages` and `tools` with Anthropic's four breakpoints: the last tool schema,
    the system prompt, the end of the previous request, and the last message. The previous
    request's end is marked exactly (not found by Anthropic's 20-block lookback), so a turn
    with many parallel tool calls still reads the whole earlier conversation from the cache."""
    marked = [dict(m) for m in messages]
    targets = {len(marked) - 1} if marked else set()
    if marked and marked[0]["role"] == "system":
        targets.add(0)
    previous = previous_request_end(marked)
    if previous is not None:
        targets.add(previous)
    for index in targets:
        message = marked[index]
        content = message.get("content")
        if isinstance(content, list) and content:
            # Content parts (images): litellm reads a breakpoint only on a part, not on the
            # message around them; the last part carries it.
            parts = [dict(part) for part in content]
            parts[-1]["cache_control"] = dict(EPHEMERAL)
            message["content"] = parts
            continue
        message["cache_control"] = dict(EPHEMERAL)
        if message.get("tool_calls") and not message.get("content"):
            # No text to carry it: the last tool call carries it (litellm reads it there).
            calls = [dict(call) for call in message["tool_calls"]]
            calls[-1]["cache_control"] = dict(EPHEMERAL)
            message["tool_calls"] = calls
    marked_tools = None
    if tools:
        marked_tools = [dict(tool) for tool in tools]
        marked_tools[-1]["cache_control"] = dict(EPHEMERAL)
    return marked, marked_tools


def without_foreign_reasoning(messages: list[dict[str, Any]], claude: bool) -> list[dict[str, Any]]:
    """The reasoning fields each provider takes back: Claude gets its signed thinking blocks
    (litellm turns them into content blocks); other providers get plain reasoning content, and
    only on replies that called tools (their tool turn goes on from it), never thinking blocks
    (strict OpenAI-compatible servers refuse fields they do not know)."""
    out = []
    for message in messages:
        if "thinking_blocks" not in message and "reasoning_content" not in message:
            out.append(message)
            continue
        kept = dict(message)
        if claude:
            kept.pop("reasoning_content", None)
        else:
            kept.pop("thinking_blocks", None)
            if not kept.get("tool_calls"):
                kept.pop("reasoning_content", None)
        out.append(kept)
    return out
