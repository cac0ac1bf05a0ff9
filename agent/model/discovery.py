"""The models pleat can use without being told: those of providers whose key variable is set,
and those local servers serve; and the one it starts with when no model is configured."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agent.model.llm import credentialed_models
from agent.model.local_servers import OPENAI_PREFIX, LocalServer, probe_servers


@dataclass(frozen=True)
class ProviderDefault:
    """A provider pleat may pick on its own: the variable litellm reads its key from, and the
    model pleat uses when it picks it."""

    provider: str  # litellm's name for it
    key: str
    model: str


# Providers pleat picks from when no model is configured, most preferred first, each with its
# strongest tool-using coding model that litellm knows (tests/unit/test_model_discovery.py
# checks litellm routes each to its provider). A key in the environment is a deliberate
# choice, so any of these comes before a local server.
PROVIDER_DEFAULTS = (
    ProviderDefault("anthropic", "ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ProviderDefault("openai", "OPENAI_API_KEY", "openai/gpt-5"),
    ProviderDefault("gemini", "GEMINI_API_KEY", "gemini/gemini-2.5-pro"),
    ProviderDefault("xai", "XAI_API_KEY", "xai/grok-code-fast-1"),
    ProviderDefault("deepseek", "DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
    ProviderDefault("mistral", "MISTRAL_API_KEY", "mistral/devstral-medium-latest"),
    ProviderDefault("openrouter", "OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4.5"),
    ProviderDefault("groq", "GROQ_API_KEY", "groq/openai/gpt-oss-120b"),
)


@dataclass(frozen=True)
class FoundModel:
    """A model pleat can call: its litellm string, the server it is called at (None: the
    provider's own), where it was found (one line), and the heading it is listed under."""

    name: str
    api_base: str | None = None
    source: str = ""
    group: str = ""


def same_model(a: FoundModel | None, b: FoundModel | None) -> bool:
    """Whether two entries call the same model at the same place (`openai/x` at a server is
    `x` there: litellm sends `x` either way)."""
    if a is None or b is None or a.api_base != b.api_base:
        return False
    if a.api_base is None:
        return a.name == b.name
    return a.name.removeprefix(OPENAI_PREFIX) == b.name.removeprefix(OPENAI_PREFIX)


def keyed_defaults(environ: Mapping[str, str]) -> list[FoundModel]:
    """The preferred model of each provider in PROVIDER_DEFAULTS whose key is set, in order
    (no litellm needed: this decides a start without a model in no time)."""
    return [
        FoundModel(p.model, None, f"{p.key} is set", p.provider)
        for p in PROVIDER_DEFAULTS
        if environ.get(p.key, "").strip()
    ]


def served_models(servers: Iterable[LocalServer]) -> list[FoundModel]:
    """Each answering server's models, under a heading naming the server."""
    return [
        FoundModel(name, server.url, f"served by {server.kind} at {server.url}", where)
        for server in servers
        for where in [f"{server.kind} at {server.url}"]
        for name in server.models
    ]


async def first_model(
    environ: Mapping[str, str], servers: Iterable[str], api_base: str | None = None
) -> FoundModel | None:
    """The model to use when none is configured: with an api_base configured, the first model
    that server serves (it was named: nothing else is guessed); otherwise the preferred
    provider's model when a key is set (the servers are then not asked), else the first model
    of the first server that answers, in the configured order. None when there is none."""
    if api_base:
        found = served_models(await probe_servers([api_base]))
        return found[0] if found else None
    keyed = keyed_defaults(environ)
    if keyed:
        return keyed[0]
    found = served_models(await probe_servers(servers))
    return found[0] if found else None


def _provider_models(environ: Mapping[str, str]) -> list[FoundModel]:
    """Every chat model of every provider whose key is set: the preferred one first, then
    litellm's list (sorted); providers in PROVIDER_DEFAULTS first, in its order."""
    if not any(name.endswith("_API_KEY") and value.strip() for name, value in environ.items()):
        return []  # no provider's key at all: litellm's lists (and its import) are not needed
    lists = credentialed_models(environ)
    order = [p.provider for p in PROVIDER_DEFAULTS]
    preferred = {p.provider: p.model for p in PROVIDER_DEFAULTS}
    providers = sorted(lists, key=lambda p: (order.index(p) if p in order else len(order), p))
    found: list[FoundModel] = []
    for provider in providers:
        key, models = lists[provider]
        names = (
            list(dict.fromkeys([preferred[provider], *models])) if provider in preferred else models
        )
        found += [FoundModel(name, None, f"{key} is set", provider) for name in names]
    return found


async def discover(environ: Mapping[str, str], servers: Iterable[str]) -> list[FoundModel]:
    """Every model for the picker: the keyed providers' (litellm's lists, read in a thread: the
    first read imports litellm), then the answering servers'; asked at the same time."""
    keyed, answering = await asyncio.gather(
        asyncio.to_thread(_provider_models, environ), probe_servers(servers)
    )
    return keyed + served_models(answering)
