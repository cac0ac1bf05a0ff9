"""web_search through the model provider's own search: one small completion with search enabled.

litellm's `web_search_options` turns search on for each provider its own way (Anthropic's
server tool `web_search_20250305`, OpenAI's search models, Gemini's grounding with Google
Search); `search_context_size` "low" makes it one search per call (Anthropic's `max_uses` 1),
which the session's cap counts. OpenAI searches in Chat Completions only with its search
models (litellm's `supports_web_search` means its Responses API tool; it drops or passes on the
option for other models, which then answer from memory or fail), so an OpenAI session searches
with OPENAI_SEARCH_MODEL; xAI searches through its Responses API only (litellm drops the option
on chat), so it has none here. The call is separate from the conversation (one user message,
no tools, no history), so no searched text enters the conversation but through the tool's
bounded result. What comes back, in litellm's OpenAI-shaped reply:

- Anthropic: the `web_search_tool_result` blocks in the message's `provider_specific_fields`
  (`web_search_results`: each result's title and URL; an error block's code), and the text's
  `citations` (the cited passage and its URL), which become the results' snippets;
- OpenAI: the message's `annotations` of type `url_citation` (title and URL);
- Gemini: the reply's `vertex_ai_grounding_metadata` (`groundingChunks` with their web source).

The written answer comes back too, bounded with the results (tools/web_search_results.py), but
only when the reply shows a search (a result or a citation): an answer without one was written
from the model's memory, not from the web.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Any

from agent.model.errors import LLMError, classify
from agent.model.litellm_door import load_litellm
from agent.model.llm import SKIP_MCP_GATEWAY, resolve_model
from agent.model.settings import ModelSettings
from agent.model.stream_assembly import usage_from
from sessions.usage import Usage
from tools.errors import ToolError
from tools.web_search import Searcher
from tools.web_search_results import SearchFindings, SearchHit

# Output tokens of the provider's written answer: a few paragraphs with citations; the
# results carry the sources, and the model reads pages with web_fetch.
ANSWER_TOKENS = 1024
# litellm's size of a search: "low" is one search per call on Anthropic and the least
# context on OpenAI, so one web_search call is one billed search.
SEARCH_CONTEXT_SIZE = "low"
# Seconds a search call may take, whatever the model's own timeout (10 minutes by default, for
# a long reply): a search with its short answer takes 5-30 s; past two minutes it is hung.
SEARCH_SECONDS = 120.0
# The model an OpenAI session searches with when its own is not one of OpenAI's search models
# (only those search in Chat Completions): the smallest and cheapest of them.
OPENAI_SEARCH_MODEL = "openai/gpt-4o-mini-search-preview"
# Providers whose own search litellm reaches, and how a result names them.
PROVIDER_NAMES = {
    "anthropic": "Anthropic's web search",
    "openai": "OpenAI's web search",
    "gemini": "Google Search (Gemini)",
    "vertex_ai": "Google Search (Vertex AI)",
}
# Model names without a provider prefix that name one of them (litellm resolves them so).
BARE_PREFIXES = {
    "claude": "anthropic",
    "gpt-": "openai",
    "o3": "openai",
    "o4": "openai",
    "gemini": "gemini",
}
PROMPT = (
    "Search the web for: {query}\n{domains}Answer in a few sentences from the search results "
    "only, citing each source by its URL. If the results do not answer it, say so."
)


def named_provider(model: str, api_base: str | None) -> str | None:
    """The provider with a search of its own that `model` names, without litellm (a tool list
    is made before litellm is loaded); None for any other. With `api_base` only Anthropic's
    (a proxy of Anthropic's API): any other server given by its address is OpenAI-compatible,
    and such servers have no search of their own."""
    name = model.lower()
    prefix, slash, _ = name.partition("/")
    provider = prefix if slash else None
    if provider is None:
        provider = next((p for start, p in BARE_PREFIXES.items() if name.startswith(start)), None)
    elif provider not in PROVIDER_NAMES:
        return None
    if api_base and provider != "anthropic":
        return None
    return provider


class ProviderSearcher:
    """Searches with the model's provider (`settings`: the session's model). `fallback`
    searches instead when litellm's model facts say the model has no search of its own
    (unless `forced`: the user chose `backend = "provider"`)."""

    def __init__(
        self,
        settings: ModelSettings,
        provider: str,
        fallback: Searcher | None = None,
        forced: bool = False,
    ) -> None:
        self.settings = settings
        if (
            provider == "openai"
            and "search" not in settings.model.lower()
            and not settings.api_base
        ):
            settings = dataclasses.replace(settings, model=OPENAI_SEARCH_MODEL)
        # The model the search call goes to (the session's, or OpenAI's search model).
        self.search_settings = settings
        self.own_source = PROVIDER_NAMES.get(provider, f"{provider}'s web search")
        self.fallback = fallback
        self.forced = forced
        self._has_search: bool | None = None
        # Where a search call's usage and price go (the session's tally and journal, set when
        # the agent is assembled), so the spending cap counts searches; None: nowhere.
        self.on_usage: Callable[[Usage, str], None] | None = None

    @property
    def source(self) -> str:
        """Who receives the query: the provider, or the fallback when it searches instead."""
        if self.fallback is not None and not self._searches_itself():
            return self.fallback.source
        return self.own_source

    def _searches_itself(self) -> bool:
        """Whether the provider searches: forced, or litellm's facts say so (once)."""
        if self.forced:
            return True
        if self._has_search is None:
            self._has_search = model_has_search(self.search_settings)
        return self._has_search

    async def search(self, query: str, limit: int, domains: tuple[str, ...]) -> SearchFindings:
        if not await asyncio.to_thread(self._searches_itself):
            if self.fallback is not None:
                return await self.fallback.search(query, limit, domains)
            raise ToolError(
                f"{self.settings.model} has no web search of its own (per litellm's model "
                "facts) and no search backend is set: set url in [web_search] (a SearXNG)"
            )
        litellm = load_litellm()
        only = f"Use only results from: {', '.join(domains)}.\n" if domains else ""
        kwargs: dict[str, Any] = {
            "messages": [{"role": "user", "content": PROMPT.format(query=query, domains=only)}],
            "web_search_options": {"search_context_size": SEARCH_CONTEXT_SIZE},
            "max_tokens": ANSWER_TOKENS,
            "timeout": min(self.settings.timeout, SEARCH_SECONDS),
            "num_retries": 0,
            "max_retries": 0,
            SKIP_MCP_GATEWAY: True,  # see agent/model/llm.py
        }
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
        if self.settings.api_key:
            kwargs["api_key"] = self.settings.api_key
        try:
            kwargs["model"] = resolve_model(self.search_settings)[0]
            started = time.monotonic()
            async with asyncio.timeout(SEARCH_SECONDS):  # litellm's own may not hold
                response = await litellm.acompletion(**kwargs)
        except TimeoutError:
            raise ToolError(
                f"{self.own_source} did not answer within {SEARCH_SECONDS:g} s"
            ) from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # every provider failure, classified in one line
            error = exc if isinstance(exc, LLMError) else classify(exc, self.search_settings)
            raise ToolError(f"{self.own_source} failed: {error.message}") from None
        if self.on_usage is not None:
            usage = usage_from(getattr(response, "usage", None), time.monotonic() - started)
            self.on_usage(_priced(litellm, response, usage), kwargs["model"])
        return findings_from(response, self.own_source)


def model_has_search(settings: ModelSettings) -> bool:
    """Whether litellm's model facts say the model searches (its `supports_web_search`, or a
    price per search, which litellm gives Claude models that lack the flag)."""
    litellm = load_litellm()
    try:
        model = resolve_model(settings)[0]
        facts = dict(litellm.get_model_info(model))
    except Exception:  # a model litellm does not know: no search of its own that pleat knows
        return False
    return bool(facts.get("supports_web_search") or facts.get("search_context_cost_per_query"))


def _priced(litellm: Any, response: Any, usage: Usage) -> Usage:
    """The usage with the call's price, the searches' fee included (litellm's completion_cost
    counts a provider's search requests); unpriced when litellm does not know the model."""
    try:
        cost = float(litellm.completion_cost(completion_response=response))
    except Exception:
        return usage
    return Usage(**{**usage.__dict__, "cost": cost})


def findings_from(response: Any, source: str) -> SearchFindings:
    """The results and answer of a reply (see the module); ToolError when the provider's
    search itself failed (Anthropic's error block: its code)."""
    message = response.choices[0].message
    fields = getattr(message, "provider_specific_fields", None) or {}
    cited: dict[str, tuple[str, str]] = {}
    for url, pair in _citations(fields.get("citations")):
        cited.setdefault(url, pair)  # the first passage cited from a page
    hits: list[SearchHit] = []
    for block in _dicts(fields.get("web_search_results")):
        content = block.get("content")
        if isinstance(content, dict) and content.get("type") == "web_search_tool_result_error":
            code = str(content.get("error_code", "unknown"))[:60]
            raise ToolError(f"{source} failed: {code}")
        for item in _dicts(content):
            where = _text(item.get("url"))
            if where:
                hits.append(
                    SearchHit(_text(item.get("title")), where, cited.get(where, ("", ""))[1])
                )
    for note in _dicts(getattr(message, "annotations", None)):
        citation = note.get("url_citation")
        if note.get("type") == "url_citation" and isinstance(citation, dict):
            hits.append(SearchHit(_text(citation.get("title")), _text(citation.get("url"))))
    for metadata in _dicts(getattr(response, "vertex_ai_grounding_metadata", None)):
        for chunk in _dicts(metadata.get("groundingChunks")):
            web = chunk.get("web")
            if isinstance(web, dict):
                hits.append(SearchHit(_text(web.get("title")), _text(web.get("uri"))))
    listed = {hit.url for hit in hits}
    hits += [
        SearchHit(title, url, text) for url, (title, text) in cited.items() if url not in listed
    ]
    answer = _text(getattr(message, "content", "")) if hits else ""  # else from memory
    return SearchFindings(source, tuple(hits), answer)


def _citations(raw: Any) -> Iterator[tuple[str, tuple[str, str]]]:
    """(url, (title, cited passage)) of each of Anthropic's citations, in order; litellm gives
    a list per text block."""
    for group in raw if isinstance(raw, list) else ():
        for citation in _dicts(group if isinstance(group, list) else [group]):
            url = citation.get("url")
            if isinstance(url, str):
                yield url, (_text(citation.get("title")), _text(citation.get("cited_text")))


def _dicts(raw: Any) -> list[dict[str, Any]]:
    """The dicts of a list (anything else: none), objects litellm made dicts first."""
    items = raw if isinstance(raw, list) else []
    out = []
    for item in items:
        if not isinstance(item, dict) and hasattr(item, "model_dump"):
            item = item.model_dump()
        if isinstance(item, dict):
            out.append(item)
    return out


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
