"""Which search the web_search tool uses, if any: the [web_search] setting and the model decide.

`auto` (the default) offers web_search when the model's provider has a search of its own (a
guess from the model's name, since the tool list is made before litellm loads; litellm's model
facts confirm it at the first search, and SearXNG searches instead when they say no and a `url`
is set) or when a SearXNG `url` is set; without either, web_search is not offered at all, as
Claude Code offers WebSearch only where it works. `provider`, `searxng` and `off` are the
user's word. The session's count of searches outlives the agent: a model switch builds a new
agent for the same session, which must not start the cap over.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from agent.model.provider_search import ProviderSearcher, named_provider
from agent.model.settings import ModelSettings
from sessions.store import Session
from tools.web_search import SearchCount, Searcher, WebSearchTool
from tools.web_search_searxng import SearxngSearcher
from tools.web_search_settings import WebSearchSettings

# Each open session's count of searches, kept while the session object lives.
_COUNTS: WeakKeyDictionary[Session, SearchCount] = WeakKeyDictionary()


def web_search_tool(
    settings: WebSearchSettings | None, model: ModelSettings, session: Session
) -> WebSearchTool | None:
    """The tool for this session and model, or None when no search is available."""
    settings = settings or WebSearchSettings()
    searcher = _searcher(settings, model)
    if searcher is None:
        return None
    count = _COUNTS.setdefault(session, SearchCount(settings.per_session_cap))
    count.cap = settings.per_session_cap
    return WebSearchTool(searcher, count, settings.max_results)


def _searcher(settings: WebSearchSettings, model: ModelSettings) -> Searcher | None:
    searxng = SearxngSearcher(settings.url) if settings.url else None
    if settings.backend == "off":
        return None
    if settings.backend == "searxng":
        return searxng
    provider = named_provider(model.model, model.api_base)
    if settings.backend == "provider":
        return ProviderSearcher(model, provider or model.model.partition("/")[0], forced=True)
    if provider is not None:
        return ProviderSearcher(model, provider, fallback=searxng)
    return searxng
