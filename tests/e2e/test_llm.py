"""agent.model.llm over real HTTP against the scripted server: streaming, tool-call assembly, usage,
error classification and bounded retries, through the real litellm."""

from __future__ import annotations

from typing import Any

import pytest

from agent.events import Retrying
from agent.model.errors import LLMError, classify
from agent.model.llm import LLM, SKIP_MCP_GATEWAY, LLMReply
from agent.model.overflow import is_context_overflow
from agent.model.settings import ModelSettings
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import (
    Drop,
    Error,
    ScriptedServer,
    Text,
    ToolCalls,
    context_overflow,
)

# Retries in tests wait milliseconds, not seconds: the backoff shape is what is under test.
FAST_RETRY = 0.001


def make_llm(server: ScriptedServer, **overrides: Any) -> LLM:
    settings = {
        "model": TEST_MODEL,
        "api_base": server.base_url,
        "api_key": TEST_API_KEY,
        "retry_base_delay": FAST_RETRY,
        **overrides,
    }
    return LLM(ModelSettings(**settings))


async def collect(llm: LLM, tools: list[dict] | None = None) -> list[Any]:
    return [item async for item in llm.stream([{"role": "user", "content": "hi"}], tools)]


async def test_streams_text_in_pieces_and_reports_usage(server: ScriptedServer) -> None:
    server.push(Text("The answer is forty-two, as everybody knows."))
    items = await collect(make_llm(server))
    deltas = [i for i in items if isinstance(i, str)]
    reply = items[-1]
    assert len(deltas) > 3
    assert isinstance(reply, LLMReply)
    assert "".join(deltas) == reply.text == "The answer is forty-two, as everybody knows."
    assert reply.finish_reason == "stop"
    assert reply.usage.prompt_tokens == server.requests[0].prompt_tokens
    assert reply.usage.completion_tokens > 0
    assert server.requests[0].body["stream"] is True


async def test_assembles_tool_call_deltas(server: ScriptedServer) -> None:
    args = {"path": "src/some/deeply/nested/module.py", "offset": 10, "limit": 200}
    server.push(
        ToolCalls([("read_file", args), ("grep", {"pattern": r"def \w+\("})], text="Looking.")
    )
    tools = [
        {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}
    ]
    reply = (await collect(make_llm(server), tools))[-1]
    assert reply.text == "Looking."
    assert [c.name for c in reply.tool_calls] == ["read_file", "grep"]
    assert reply.tool_calls[0].parsed_arguments() == args
    assert reply.tool_calls[1].parsed_arguments() == {"pattern": r"def \w+\("}
    assert reply.tool_calls[0].id != reply.tool_calls[1].id
    assert reply.finish_reason == "tool_calls"
    assert server.requests[0].body["tools"] == tools


async def test_the_mcp_gateway_skip_is_litellms_own_and_never_reaches_the_server(
    server: ScriptedServer,
) -> None:
    """pleat tells litellm not to look for MCP tools its proxy would serve (0.6 s of imports at
    the first call); litellm takes the parameter out: the request carries only the call's own
    fields, the tools exactly as given."""
    server.push(Text("ok"))
    tools = [
        {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}
    ]
    reply = (await collect(make_llm(server), tools))[-1]
    assert reply.text == "ok"
    body = server.requests[0].body
    assert SKIP_MCP_GATEWAY not in body
    assert not [key for key in body if "mcp" in key.lower()]
    assert body["tools"] == tools


async def test_cached_prompt_tokens_are_reported(server: ScriptedServer) -> None:
    llm = make_llm(server)
    long_history = [{"role": "user", "content": "context " * 400}]
    server.push(Text("one"), Text("two"))
    first = [i async for i in llm.stream(long_history)][-1]
    second_history = [
        *long_history,
        {"role": "assistant", "content": "one"},
        {"role": "user", "content": "more"},
    ]
    second = [i async for i in llm.stream(second_history)][-1]
    assert first.usage.cached_tokens == 0
    assert second.usage.cached_tokens == server.requests[1].cached_tokens > 300
    assert second.usage.cached_tokens < second.usage.prompt_tokens


async def test_context_overflow_is_classified_and_not_retried(server: ScriptedServer) -> None:
    server.push(context_overflow(1000, 5000), Text("never reached"))
    with pytest.raises(LLMError) as info:
        await collect(make_llm(server))
    assert info.value.kind == "context_overflow"
    assert "maximum context length is 1000" in info.value.message
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (Error(429, "Rate limit reached", code="rate_limit_exceeded"), "rate_limit"),
        (Error(500, "internal failure", type="server_error"), "transient"),
        (Error(503, "overloaded", type="server_error"), "transient"),
    ],
)
async def test_transient_errors_retry_then_succeed(
    server: ScriptedServer, error: Error, kind: str
) -> None:
    server.push(error, error, Text("recovered"))
    items = await collect(make_llm(server))
    retries = [i for i in items if isinstance(i, Retrying)]
    assert [r.attempt for r in retries] == [1, 2]
    assert retries[1].delay > retries[0].delay  # backoff grows
    assert items[-1].text == "recovered"
    assert len(server.requests) == 3


@pytest.mark.slow  # seconds of output or retries: the whole suite runs it
async def test_retries_are_bounded(server: ScriptedServer) -> None:
    server.push(*[Error(500, "down", type="server_error")] * 10)
    with pytest.raises(LLMError) as info:
        await collect(make_llm(server, max_retries=2))
    assert info.value.kind == "transient"
    assert len(server.requests) == 3  # first try + 2 retries


async def test_retry_after_header_is_honoured(server: ScriptedServer) -> None:
    server.push(Error(429, "slow down", headers={"retry-after": "0.05"}), Text("ok"))
    items = await collect(make_llm(server))
    retry = next(i for i in items if isinstance(i, Retrying))
    assert retry.delay == pytest.approx(0.05)


async def test_dropped_connection_before_text_is_retried(server: ScriptedServer) -> None:
    server.push(Drop(after_chunks=0), Text("second try"))
    items = await collect(make_llm(server))
    assert items[-1].text == "second try"
    assert any(isinstance(i, Retrying) for i in items)


async def test_dropped_connection_mid_text_is_an_error_not_a_duplicate(
    server: ScriptedServer,
) -> None:
    server.push(Drop(text="a reply that stops early and never ends", after_chunks=2), Text("x"))
    shown: list[str] = []
    with pytest.raises(LLMError) as info:
        async for item in make_llm(server).stream([{"role": "user", "content": "hi"}]):
            if isinstance(item, str):
                shown.append(item)
    assert info.value.kind == "transient"
    assert "mid-stream" in info.value.message
    assert shown and "".join(shown) != "a reply that stops early and never ends"
    assert len(server.requests) == 1


async def test_bad_key_is_an_auth_error_that_names_no_key(server: ScriptedServer) -> None:
    with pytest.raises(LLMError) as info:
        await collect(make_llm(server, api_key="sk-wrong-key-999"))
    assert info.value.kind == "auth"
    assert "sk-wrong-key-999" not in info.value.message
    assert len(server.requests) == 1  # auth errors are not retried


async def test_unknown_model_on_server_is_a_config_error(server: ScriptedServer) -> None:
    with pytest.raises(LLMError) as info:
        await collect(make_llm(server, model="no-such-model"))
    assert info.value.kind == "config"
    assert "no-such-model" in info.value.message


async def test_unknown_model_without_server_is_a_config_error() -> None:
    with pytest.raises(LLMError) as info:
        await collect(LLM(ModelSettings(model="definitely-not-a-model-xyz")))
    assert info.value.kind == "config"
    assert "unknown model" in info.value.message


async def test_unreachable_server_is_transient_after_bounded_retries() -> None:
    llm = LLM(
        ModelSettings(
            model=TEST_MODEL,
            api_base="http://127.0.0.1:9/v1",
            api_key="x",
            retry_base_delay=FAST_RETRY,
        )
    )
    items: list[Any] = []
    with pytest.raises(LLMError) as info:
        async for item in llm.stream([{"role": "user", "content": "hi"}]):
            items.append(item)
    assert info.value.kind == "transient"
    assert "cannot reach http://127.0.0.1:9/v1" in info.value.message
    assert len(items) == 3  # three Retrying notices, then the error


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 210000 tokens > 200000 maximum",
        "This model's maximum context length is 8192 tokens",
        "Error code: 400 - context_length_exceeded",
        "The input token count exceeds the model's context window",
        "Input is too long for requested model.",
        "too many tokens in request",
        "requested 9000 tokens, but the context size is 8192",
    ],
)
def test_provider_overflow_wordings_are_recognised(text: str) -> None:
    assert is_context_overflow(text)


def test_ordinary_errors_are_not_overflow() -> None:
    assert not is_context_overflow("Invalid value for temperature")
    assert not is_context_overflow("rate limit reached for requests")


def test_classify_keeps_provider_words_without_exception_names() -> None:
    settings = ModelSettings(model="m", api_base="http://h/v1")
    error = classify(RuntimeError("litellm.BadRequestError: Boom"), settings)
    assert error.kind == "transient"


def test_claude_is_found_by_the_provider_litellm_resolves() -> None:
    from agent.model.llm import LLM

    claude = [
        "claude-sonnet-4-5",
        "anthropic/claude-sonnet-4-5",
        "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "vertex_ai/claude-sonnet-4-5",
    ]
    for model in claude:
        assert LLM(ModelSettings(model=model)).claude, model
    for model in ("openai/gpt-4o", "gpt-4o", "gemini/gemini-2.5-pro", "ollama/llama3"):
        assert not LLM(ModelSettings(model=model)).claude, model


def test_four_breakpoints_mark_the_previous_request_exactly() -> None:
    """Tools, system, the end of the previous request and the last message: with twelve
    parallel tool calls (more than Anthropic's 20-block lookback) the previous request's end
    is still marked."""
    from agent.model.request_shape import with_cache_breakpoints

    calls = [{"id": f"c{i}", "type": "function", "function": {"name": "f"}} for i in range(12)]
    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *({"role": "tool", "tool_call_id": f"c{i}", "content": "r"} for i in range(12)),
    ]
    tools = [{"type": "function", "function": {"name": "a"}}, {"type": "function"}]
    marked, marked_tools = with_cache_breakpoints(messages, tools)
    points = [i for i, m in enumerate(marked) if "cache_control" in m]
    assert points == [0, 1, len(messages) - 1]
    assert marked_tools is not None and "cache_control" in marked_tools[-1]
    assert "cache_control" not in marked_tools[0]
    # The previous request's end is where its own last breakpoint was: [system, "one"].
    # An assistant message without text carries the mark on its last tool call.
    reply_only = [*messages[:3], {"role": "user", "content": "compress"}]
    marked, _ = with_cache_breakpoints(reply_only, None)
    assert [i for i, m in enumerate(marked) if "cache_control" in m] == [0, 1, 3]
    assert "cache_control" not in messages[0]  # the caller's messages are untouched
