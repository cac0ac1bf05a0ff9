"""Which search web_search gets: the provider's by the model's name, SearXNG by the setting, or
none (the tool is then not offered); a model switch keeps the session's count."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.model import provider_search
from agent.model.provider_search import ProviderSearcher, named_provider
from agent.model.search_choice import web_search_tool
from agent.model.settings import ModelSettings
from sessions.store import Session
from tests.support.scripted_server import ScriptedServer, Stall, Text
from tools.base import ToolContext
from tools.errors import ToolError
from tools.registry import ToolRegistry
from tools.web_search import SearchCount, WebSearchTool
from tools.web_search_searxng import SearxngSearcher
from tools.web_search_settings import WebSearchSettings

SEARXNG = WebSearchSettings(url="http://127.0.0.1:8888/", per_session_cap=5)


def test_the_provider_is_named_by_the_model_and_a_compatible_server_has_none() -> None:
    assert named_provider("claude-sonnet-4-5", None) == "anthropic"
    assert named_provider("anthropic/claude-opus-4-1", "http://proxy:4000") == "anthropic"
    assert named_provider("gpt-5", None) == named_provider("openai/gpt-4o", None) == "openai"
    assert named_provider("gemini/gemini-2.5-flash", None) == "gemini"
    assert named_provider("openai/gpt-4o", "http://127.0.0.1:8080/v1") is None  # compatible
    assert named_provider("ollama/llama3", None) is None
    assert named_provider("qwen2.5-coder", None) is None
    # xAI searches through its Responses API only: litellm drops the option on chat.
    assert named_provider("grok-4", None) is None and named_provider("xai/grok-4.3", None) is None


def test_the_search_follows_the_setting_and_the_count_outlives_a_model_switch(
    workspace: Path,
) -> None:
    session = Session.create(workspace, model="x")
    try:
        local = ModelSettings("openai/qwen", api_base="http://127.0.0.1:8080/v1")
        claude = ModelSettings("claude-sonnet-4-5")
        assert web_search_tool(None, local, session) is None  # nothing to search with: no tool
        assert web_search_tool(WebSearchSettings(backend="off"), claude, session) is None
        tool = web_search_tool(SEARXNG, local, session)
        assert tool is not None and isinstance(tool.searcher, SearxngSearcher)
        tool.count.made = 3
        switched = web_search_tool(SEARXNG, claude, session)
        assert switched is not None and isinstance(switched.searcher, ProviderSearcher)
        assert switched.searcher.fallback is not None  # SearXNG if litellm says no search
        assert (switched.count.made, switched.count.cap) == (3, 5)
        forced = web_search_tool(WebSearchSettings(backend="provider"), local, session)
        assert forced is not None and isinstance(forced.searcher, ProviderSearcher)
        pinned = web_search_tool(WebSearchSettings("searxng", SEARXNG.url), claude, session)
        assert pinned is not None and isinstance(pinned.searcher, SearxngSearcher)
    finally:
        session.close()


@pytest.mark.slow  # imports litellm (seconds, when first in its process)
async def test_a_model_litellm_knows_without_search_and_no_backend_answer_in_one_line(
    workspace: Path,
) -> None:
    session = Session.create(workspace, model="claude-3-haiku-20240307")
    try:
        model = ModelSettings("claude-3-haiku-20240307")  # named, not in litellm's facts
        tool = web_search_tool(None, model, session)  # named: offered
        assert tool is not None
        with pytest.raises(ToolError) as caught:
            await tool.searcher.search("python asyncio", 5, ())
    finally:
        session.close()
    assert str(caught.value) == (
        "claude-3-haiku-20240307 has no web search of its own (per litellm's model facts) and "
        "no search backend is set: set url in [web_search] (a SearXNG)"
    )


@pytest.mark.slow  # imports litellm (seconds, when first in its process)
async def test_an_openai_session_searches_with_a_search_model_and_an_unsearched_answer_is_dropped(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gpt-4.1 does not search in Chat Completions (litellm's supports_web_search is its
    Responses API's): the search goes to OpenAI's search model. Its reply here cites nothing,
    so its text was written from memory: not given as the search's answer."""
    with ScriptedServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)  # OpenAI's address, for litellm
        server.push(Text("From memory: pleat 2.0 came out in 1999."))
        searcher = ProviderSearcher(ModelSettings("gpt-4.1", api_key="sk-test"), "openai")
        tool = WebSearchTool(searcher, SearchCount())
        output = await ToolRegistry([tool]).dispatch(
            "web_search", {"query": "pleat release"}, ToolContext(workspace=workspace)
        )
    body = server.requests[0].body
    assert body["model"] == "gpt-4o-mini-search-preview" and "web_search_options" in body
    assert not output.is_error and "0 results" in output.text
    assert "1999" not in output.text


@pytest.mark.slow  # imports litellm; waits for the (shortened) bound
async def test_a_hung_provider_search_ends_at_its_bound_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(provider_search, "SEARCH_SECONDS", 0.5)
    with ScriptedServer() as server:
        server.push(Stall(5))
        model = ModelSettings("openai/gpt-4o-search-preview", server.base_url, "sk-test")
        searcher = ProviderSearcher(model, "openai", forced=True)
        with pytest.raises(ToolError) as caught:
            await searcher.search("pleat release", 5, ())
    assert str(caught.value) == "OpenAI's web search did not answer within 0.5 s"
