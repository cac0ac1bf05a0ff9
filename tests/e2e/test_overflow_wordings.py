"""Each provider's context-overflow wording: recognised, its numbers read, and learned from.

The end-to-end half plays each provider: the scripted server refuses any request over its
window with that provider's words (a 400 over the real socket), while pleat believes the window
is far larger. pleat must learn the window (or, from Ollama's "exceeded by N", infer it), fold,
and finish the turn with no request over the real window after the first refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.events import CompactionDone, TurnDone
from agent.model.overflow import StatedLimits, is_context_overflow, stated_limits
from agent.model.tokens import TokenLedger
from tests.support.compaction_agent import (
    GOOD_SUMMARY,
    PROSE,
    fill_history,
    is_compression,
    make_agent,
    run,
)
from tests.support.scripted_server import Error, ScriptedServer, Text, estimate_tokens

# The real window of the provider played here; pleat is told 100k.
WINDOW = 12_000

# provider: (wording for a request of `asked` tokens, the limits pleat must read from it)
WORDINGS: dict[str, tuple[Callable[[int], str], Callable[[int], StatedLimits]]] = {
    "openai": (
        lambda asked: (
            f"This model's maximum context length is {WINDOW} tokens. However, your messages "
            f"resulted in {asked} tokens. Please reduce the length of the messages."
        ),
        lambda asked: StatedLimits(window=WINDOW, requested=asked),
    ),
    "vllm": (
        lambda asked: (
            f"This model's maximum context length is {WINDOW} tokens. However, you requested "
            f"{asked + 500} tokens ({asked} in the messages, 500 in the completion). Please "
            "reduce the length of the messages or completion."
        ),
        lambda asked: StatedLimits(window=WINDOW, requested=asked + 500, output=500),
    ),
    "anthropic-prompt": (
        lambda asked: f"prompt is too long: {asked} tokens > {WINDOW} maximum",
        lambda asked: StatedLimits(window=WINDOW, requested=asked),
    ),
    "anthropic-max-tokens": (
        lambda asked: (
            f"input length and `max_tokens` exceed context limit: {asked} + 2000 > {WINDOW}, "
            "decrease input length or `max_tokens` and try again"
        ),
        lambda asked: StatedLimits(window=WINDOW, requested=asked, output=2000),
    ),
    "gemini": (
        lambda asked: (
            f"The input token count ({asked}) exceeds the maximum number of tokens allowed "
            f"({WINDOW})."
        ),
        lambda asked: StatedLimits(window=WINDOW, requested=asked),
    ),
    "ollama": (
        lambda asked: f"prompt too long; exceeded max context length by {asked - WINDOW} tokens",
        lambda asked: StatedLimits(excess=asked - WINDOW),
    ),
    "llama.cpp": (
        lambda asked: (
            '{"error":{"code":400,"message":"the request exceeds the available context size, '
            f'try increasing it","type":"exceed_context_size_error","n_prompt_tokens":{asked},'
            f'"n_ctx":{WINDOW}}}}}'
        ),
        lambda asked: StatedLimits(window=WINDOW, requested=asked),
    ),
    "together": (
        lambda asked: (
            f"The input ({asked} tokens) is longer than the model's context length "
            f"({WINDOW} tokens)."
        ),
        lambda asked: StatedLimits(window=WINDOW, requested=asked),
    ),
    "mistral": (
        lambda asked: (
            f"Prompt contains {asked} tokens and 0 images, too large for model with {WINDOW} "
            "maximum context length"
        ),
        lambda asked: StatedLimits(window=WINDOW, requested=asked),
    ),
}


@pytest.mark.parametrize("provider", list(WORDINGS))
def test_each_wording_is_an_overflow_with_its_numbers(provider: str) -> None:
    wording, limits = WORDINGS[provider]
    text = wording(20_000)
    assert is_context_overflow(text)
    assert stated_limits(text) == limits(20_000)


def test_numbers_with_separators_and_no_numbers() -> None:
    assert stated_limits("prompt is too long: 210,000 tokens > 200,000 maximum") == StatedLimits(
        window=200_000, requested=210_000
    )
    assert stated_limits("Input is too long for requested model.") == StatedLimits()
    # A stray small number is not a window.
    assert stated_limits("context length of 12").window is None


def wording_server(server: ScriptedServer, wording: Callable[[int], str]) -> None:
    """The server refuses requests over WINDOW with the provider's words, else answers."""

    def reply(body: dict[str, Any]) -> Error | Text:
        units = [body.get("tools", []), *body.get("messages", [])]
        asked = sum(estimate_tokens(u) for u in units)
        if asked > WINDOW:
            return Error(400, wording(asked), code="context_length_exceeded")
        return Text(GOOD_SUMMARY) if is_compression(body) else Text("recovered")

    server.fallback = reply


@pytest.mark.slow  # nine providers end to end
@pytest.mark.parametrize("provider", list(WORDINGS))
async def test_pleat_learns_the_window_from_each_wording(
    server: ScriptedServer, workspace: Path, provider: str
) -> None:
    wording, _ = WORDINGS[provider]
    wording_server(server, wording)
    agent = make_agent(server, workspace, context_window=100_000)
    # About 18k tokens: over the real window. Prose, so that Ollama's "exceeded by N" (which
    # pleat subtracts from its own count) gives about the real window, as with a real tokenizer.
    fill_history(agent, turns=16, chars=4_000, filler=PROSE)
    events = await run(agent, "and now?")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "recovered", events[-4:]
    assert agent.compactor is not None
    assert agent.compactor.budget.window <= WINDOW
    folds = [e for e in events if isinstance(e, CompactionDone)]
    assert folds and folds[0].reason == "overflow"
    refused = [r for r in server.requests if r.prompt_tokens > WINDOW]
    assert len(refused) <= 2, [r.prompt_tokens for r in server.requests]


def test_calibration_follows_the_providers_count() -> None:
    from sessions.messages import Message

    ledger = TokenLedger()
    history = [Message(role="user", content="word " * 1_000, id=f"m{i}") for i in range(3)]
    local = ledger.local_estimate(history)
    ledger.report(int(local * 1.3), history, len(history))
    assert ledger.ratio == pytest.approx(1.3, rel=0.01)
    history.append(Message(role="user", content="word " * 1_000, id="m9"))
    grown = ledger.size(history)
    assert grown == int(local * 1.3) + round(ledger.local_count(history[-1]) * ledger.ratio)
    ledger.report(local // 2, history[:3], 3)  # a provider counting less: never below 1
    assert ledger.ratio == 1.0
    ledger.calibrate(100 * local, local)
    assert ledger.ratio == 2.5  # capped: a count that large is not a tokenizer's difference


async def test_an_overflow_without_numbers_still_recovers(
    server: ScriptedServer, workspace: Path
) -> None:
    """A provider that only says "too long": pleat takes its window to be a little under what
    it sent, folds or shrinks, and the turn finishes."""
    wording_server(server, lambda asked: "Your input exceeds the context window of this model.")
    agent = make_agent(server, workspace, context_window=100_000)
    fill_history(agent, turns=16, chars=4_000)
    events = await run(agent, "and now?")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "recovered", events[-4:]
    assert agent.compactor is not None and agent.compactor.budget.window < 100_000


def test_the_reply_reserve_respects_the_models_output_limit() -> None:
    from agent.compaction.policy import Budget, CompactionPolicy
    from agent.model.llm import LLM
    from agent.model.settings import ModelSettings

    policy = CompactionPolicy()
    # Bedrock's Claude 3 Opus gives at most 4,096 output tokens: the reserve is no more.
    opus = LLM(ModelSettings(model="bedrock/anthropic.claude-3-opus-20240229-v1:0"))
    floor, cap = opus.reply_limits()
    assert (floor, cap) == (0, 4_096)
    assert Budget.of(policy, 200_000, reserved_at_most=cap).reserved == 4_096
    # Thinking needs its budget and an answer, on Claude only; never more than half a window.
    thinking = LLM(ModelSettings(model="claude-sonnet-4-5", thinking="16000"))
    assert thinking.reply_limits()[0] == 16_000 + 4_096
    assert LLM(ModelSettings(model="gpt-4o", thinking="16000")).reply_limits()[0] == 0
    assert Budget.of(policy, 8_192, reserved_at_least=20_096).reserved == 4_096
