"""Local model servers: which of them answer, and the models each serves (Ollama's list, or an
OpenAI-compatible server's), asked in parallel within a short time limit."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agent.model.bounded_http import HttpGetError, http_get
from sessions.model_json import ModelJsonError, loads

# Where local servers listen out of the box: Ollama (its own API at the root, litellm's
# `ollama_chat/` models), then OpenAI-compatible servers at /v1: LM Studio (1234), vLLM (8000),
# llama.cpp's llama-server (8080). Config `local_model_servers` replaces the list.
DEFAULT_LOCAL_MODEL_SERVERS = (
    "http://localhost:11434",
    "http://localhost:1234/v1",
    "http://localhost:8000/v1",
    "http://localhost:8080/v1",
)
# Seconds every server together gets to answer (they are asked in parallel): a local server
# lists its models in milliseconds, a closed port refuses at once, and a second and a half
# still covers one busy loading a model, while a server that stalls delays the picker (or a
# start without a configured model) by no more than that.
PROBE_SECONDS = 1.5
# Bytes of a model list at most: Ollama's entry for one model is about 500 bytes, an
# OpenAI-compatible one under 200, so 1 MiB holds thousands of models and parses in
# milliseconds; a bigger reply is not a model list.
MAX_LIST_BYTES = 1024 * 1024
# Models taken from one server at most: more than anyone has pulled, few enough to list.
MAX_MODELS_PER_SERVER = 500
# A model name as servers write them ("llama3.1:8b", "Qwen/Qwen2.5-Coder-7B-Instruct",
# "lmstudio-community/qwen2.5-7b-instruct@q4_k_m", llama-server's "/models/qwen.gguf"): letters,
# digits and . _ : / @ + ~ -, at most 200 characters. Anything else (spaces, quotes, control
# characters) is skipped, never shown or sent on.
MODEL_NAME = re.compile(r"[A-Za-z0-9._/~][A-Za-z0-9._:/@+~\-]{0,199}")
# What litellm calls the two kinds of server's models: Ollama's chat endpoint (native tool
# calls; litellm's `ollama/` goes through /api/generate and imitates them), and any
# OpenAI-compatible server reached at its api_base.
OLLAMA_PREFIX, OPENAI_PREFIX = "ollama_chat/", "openai/"


@dataclass(frozen=True)
class LocalServer:
    """A server that answered: its address as configured (the api_base its models are called
    at) and its models as litellm model strings, in the server's order."""

    url: str
    kind: str  # "Ollama" or "OpenAI-compatible"
    models: tuple[str, ...]


def _names(values: Iterable[Any]) -> tuple[str, ...]:
    """The well-formed, distinct names among `values`, in order, at most MAX_MODELS_PER_SERVER."""
    seen: dict[str, None] = {}
    for value in values:
        if isinstance(value, str) and MODEL_NAME.fullmatch(value):
            seen.setdefault(value)
            if len(seen) == MAX_MODELS_PER_SERVER:
                break
    return tuple(seen)


def ollama_models(data: Any) -> tuple[str, ...]:
    """Ollama's /api/tags: {"models": [{"name": "llama3:8b", ...}, ...]}."""
    entries = data.get("models") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return ()
    names = (e.get("name") or e.get("model") for e in entries if isinstance(e, dict))
    return tuple(OLLAMA_PREFIX + name for name in _names(names))


def openai_models(data: Any) -> tuple[str, ...]:
    """An OpenAI-compatible /models: {"object": "list", "data": [{"id": "qwen", ...}, ...]}."""
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return ()
    names = (e.get("id") for e in entries if isinstance(e, dict))
    return tuple(OPENAI_PREFIX + name for name in _names(names))


async def _ask(url: str) -> Any:
    """The JSON a GET of `url` answers with; None for anything but a 200 with JSON."""
    try:
        status, body = await http_get(url, MAX_LIST_BYTES)
        return loads(body.decode("utf-8")) if status == 200 else None
    except (HttpGetError, ModelJsonError, UnicodeDecodeError):
        return None


async def probe_server(url: str) -> LocalServer | None:
    """Ask one server for its models both ways (Ollama's /api/tags, OpenAI's /models under the
    configured URL); None when neither answers with a model."""
    base = url.rstrip("/")
    ollama, openai = await asyncio.gather(_ask(f"{base}/api/tags"), _ask(f"{base}/models"))
    if found := ollama_models(ollama):
        return LocalServer(base, "Ollama", found)
    if found := openai_models(openai):
        return LocalServer(base, "OpenAI-compatible", found)
    return None


async def probe_servers(urls: Iterable[str], seconds: float = PROBE_SECONDS) -> list[LocalServer]:
    """The servers among `urls` that answered with models within `seconds`, in `urls`' order
    (a server still silent then is left out; nothing waits longer)."""
    wanted = list(dict.fromkeys(u.rstrip("/") for u in urls))
    tasks = [asyncio.ensure_future(probe_server(url)) for url in wanted]
    if not tasks:
        return []
    await asyncio.wait(tasks, timeout=seconds)
    for task in tasks:
        task.cancel()  # the stalled ones; the finished ones ignore it
    await asyncio.gather(*tasks, return_exceptions=True)
    found = [t.result() for t in tasks if not t.cancelled() and t.exception() is None]
    return [server for server in found if server is not None]
