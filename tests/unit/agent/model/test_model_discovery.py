"""Model discovery against real local HTTP servers: Ollama's and OpenAI's list shapes, and servers
that stall, answer garbage or too much, or are closed; the preference when none is configured."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from agent.model import local_servers
from agent.model.bounded_http import HttpGetError, http_get
from agent.model.discovery import PROVIDER_DEFAULTS, FoundModel, first_model, keyed_defaults
from agent.model.local_servers import (
    MAX_LIST_BYTES,
    MAX_MODELS_PER_SERVER,
    probe_server,
    probe_servers,
)
from tests.support.loopback_server import LoopbackServer

# How long a stalled server holds a request: far past the probe's limit, so only the limit ends
# the wait (the handler thread is a daemon; the test does not wait for it).
STALL_SECONDS = 30.0
# A probe limit for the tests that only need a stalled server to be given up on.
SHORT_PROBE = 0.3

Route = Callable[[BaseHTTPRequestHandler], None]


def send(handler: BaseHTTPRequestHandler, body: bytes, status: int = 200, **headers: str) -> None:
    handler.send_response(status)
    for name, value in {"content-length": str(len(body)), **headers}.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def json_route(value: Any) -> Route:
    return lambda handler: send(handler, json.dumps(value).encode())


class RouteServer(LoopbackServer):
    """A loopback server answering GETs from a table of path -> route (404 otherwise)."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.paths: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.paths.append(self.path)
                route = server.routes.get(self.path)
                if route is None:
                    send(self, b'{"error": "not found"}', 404)
                else:
                    route(self)

        super().__init__(Handler)
        # Checked for shutdown every 10 ms rather than 0.5 s: tests start several of these.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )


@pytest.fixture
def serve() -> Iterator[Callable[[dict[str, Route]], RouteServer]]:
    started: list[RouteServer] = []

    def start(routes: dict[str, Route]) -> RouteServer:
        server = RouteServer(routes).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.__exit__(None, None, None)


def closed_port_url() -> str:
    """An address where nothing listens (a port just freed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


OLLAMA_TAGS = {
    "models": [
        {"name": "llama3.1:8b", "model": "llama3.1:8b", "size": 4_920_753_328},
        {"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b", "size": 4_683_087_332},
    ]
}
OPENAI_LIST = {"object": "list", "data": [{"id": "qwen-coder", "object": "model"}]}


def test_an_ollama_server_lists_its_models(
    serve: Callable[[dict[str, Route]], RouteServer],
) -> None:
    server = serve({"/api/tags": json_route(OLLAMA_TAGS)})
    found = asyncio.run(probe_server(server.root_url))
    assert found is not None and found.kind == "Ollama"
    assert found.models == ("ollama_chat/llama3.1:8b", "ollama_chat/qwen2.5-coder:7b")
    assert found.url == server.root_url  # the api_base its models are called at


def test_an_openai_compatible_server_lists_its_models(
    serve: Callable[[dict[str, Route]], RouteServer],
) -> None:
    server = serve({"/v1/models": json_route(OPENAI_LIST)})
    found = asyncio.run(probe_server(f"{server.root_url}/v1/"))
    assert found is not None and found.kind == "OpenAI-compatible"
    assert found.models == ("openai/qwen-coder",)
    assert found.url == f"{server.root_url}/v1"


def test_a_chunked_reply_is_decoded(serve: Callable[[dict[str, Route]], RouteServer]) -> None:
    body = json.dumps(OPENAI_LIST).encode()

    def chunked(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        for start in range(0, len(body), 10):
            piece = body[start : start + 10]
            handler.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        handler.wfile.write(b"0\r\n\r\n")

    server = serve({"/v1/models": chunked})
    found = asyncio.run(probe_server(f"{server.root_url}/v1"))
    assert found is not None and found.models == ("openai/qwen-coder",)


def test_hostile_names_are_skipped_and_the_list_is_bounded(
    serve: Callable[[dict[str, Route]], RouteServer],
) -> None:
    names = [
        "good-model",
        "\x1b[31mred\x1b[0m",
        "has space",
        'quote"d',
        "x" * 201,
        "",
        42,
        None,
        {"nested": "object"},
        "good-model",  # a duplicate
        *(f"m{n}" for n in range(MAX_MODELS_PER_SERVER + 50)),
    ]
    server = serve({"/v1/models": json_route({"data": [{"id": n} for n in names]})})
    found = asyncio.run(probe_server(f"{server.root_url}/v1"))
    assert found is not None
    assert found.models[0] == "openai/good-model"
    assert len(found.models) == MAX_MODELS_PER_SERVER
    assert all("\x1b" not in m and " " not in m and '"' not in m for m in found.models)


@pytest.mark.parametrize(
    "route",
    [
        lambda h: send(h, b"{not json at all"),
        lambda h: send(h, b"[" * 10_000 + b"]" * 10_000),
        lambda h: send(h, json.dumps({"data": "not a list"}).encode()),
        lambda h: send(h, json.dumps(OPENAI_LIST).encode(), 500),
        lambda h: send(h, b"\xff\xfe not utf-8"),
        lambda h: send(h, b"x" * (MAX_LIST_BYTES + 1)),
        lambda h: h.wfile.write(b"this is not http\r\n\r\n"),
        lambda h: h.wfile.write(b"HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\n{}"),
        lambda h: h.wfile.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"),
        lambda h: h.wfile.write(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n7fffffff\r\n"
        ),
    ],
    ids=[
        "garbage",
        "deeply-nested",
        "wrong-shape",
        "server-error",
        "not-utf8",
        "too-big",
        "not-http",
        "cut-short",
        "bad-chunk",
        "huge-chunk",
    ],
)
def test_a_bad_reply_counts_as_no_server(
    serve: Callable[[dict[str, Route]], RouteServer], route: Route
) -> None:
    server = serve({"/v1/models": route, "/v1/api/tags": route})
    assert asyncio.run(probe_server(f"{server.root_url}/v1")) is None


def test_an_endless_reply_is_cut_at_the_cap(
    serve: Callable[[dict[str, Route]], RouteServer],
) -> None:
    def endless(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.end_headers()
        try:
            while True:
                handler.wfile.write(b"x" * 65_536)
        except OSError:
            pass  # the client hung up: what it should do

    server = serve({"/v1/models": endless})
    with pytest.raises(HttpGetError, match="larger than"):
        asyncio.run(http_get(f"{server.root_url}/v1/models", MAX_LIST_BYTES))


def test_a_closed_port_and_a_bad_address_count_as_no_server() -> None:
    assert asyncio.run(probe_server(closed_port_url())) is None
    with pytest.raises(HttpGetError):
        asyncio.run(http_get("http://127.0.0.1:99999/v1/models", 100))
    with pytest.raises(HttpGetError):
        asyncio.run(http_get("ftp://127.0.0.1/v1/models", 100))


def test_a_stalled_server_is_given_up_on_and_the_others_kept(
    serve: Callable[[dict[str, Route]], RouteServer],
) -> None:
    release = threading.Event()
    stalled = serve({"/v1/models": lambda h: release.wait(STALL_SECONDS)})
    ollama = serve({"/api/tags": json_route(OLLAMA_TAGS)})
    openai = serve({"/v1/models": json_route(OPENAI_LIST)})
    urls = [f"{stalled.root_url}/v1", closed_port_url(), ollama.root_url, f"{openai.root_url}/v1"]
    try:
        found = asyncio.run(probe_servers(urls, SHORT_PROBE))
    finally:
        release.set()
    assert [s.url for s in found] == [ollama.root_url, f"{openai.root_url}/v1"]  # their order
    assert stalled.paths  # it was asked, and did not hold the others up


def test_no_servers_asks_nothing() -> None:
    assert asyncio.run(probe_servers([])) == []


def test_the_default_servers_are_the_usual_ports() -> None:
    ports = [url.split(":")[2].split("/")[0] for url in local_servers.DEFAULT_LOCAL_MODEL_SERVERS]
    assert ports == ["11434", "1234", "8000", "8080"]


def test_a_provider_key_comes_first_in_the_preference_order(
    serve: Callable[[dict[str, Route]], RouteServer],
) -> None:
    server = serve({"/v1/models": json_route(OPENAI_LIST)})
    environ = {"OPENAI_API_KEY": "sk-x", "ANTHROPIC_API_KEY": "sk-y", "GROQ_API_KEY": " "}
    keyed = keyed_defaults(environ)
    assert [m.group for m in keyed] == ["anthropic", "openai"]  # the table's order; blank = unset
    found = asyncio.run(first_model(environ, [f"{server.root_url}/v1"]))
    assert found == FoundModel(
        "anthropic/claude-sonnet-4-5", None, "ANTHROPIC_API_KEY is set", "anthropic"
    )
    assert not server.paths  # with a key set, no server is asked


def test_without_a_key_the_first_server_s_first_model(
    serve: Callable[[dict[str, Route]], RouteServer],
) -> None:
    ollama = serve({"/api/tags": json_route(OLLAMA_TAGS)})
    openai = serve({"/v1/models": json_route(OPENAI_LIST)})
    urls = [closed_port_url(), f"{openai.root_url}/v1", ollama.root_url]
    found = asyncio.run(first_model({}, urls))
    assert found is not None
    assert (found.name, found.api_base) == ("openai/qwen-coder", f"{openai.root_url}/v1")
    assert asyncio.run(first_model({}, [closed_port_url()])) is None


def test_every_provider_has_its_usual_key_variable() -> None:
    assert {p.key for p in PROVIDER_DEFAULTS} >= {
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "MISTRAL_API_KEY",
        "GROQ_API_KEY",
        "DEEPSEEK_API_KEY",
        "OPENROUTER_API_KEY",
        "XAI_API_KEY",
    }
    for provider in PROVIDER_DEFAULTS:
        assert provider.key == f"{provider.provider.upper()}_API_KEY"  # litellm's convention
        assert provider.model.startswith(f"{provider.provider}/")


@pytest.mark.slow  # imports litellm (seconds)
def test_the_preferred_models_are_litellm_s_and_listed_for_their_keys() -> None:
    from agent.model.llm import credentialed_models, resolve_model
    from agent.model.settings import ModelSettings

    environ = {p.key: "sk-test-key" for p in PROVIDER_DEFAULTS}
    lists = credentialed_models(environ)
    for provider in PROVIDER_DEFAULTS:
        assert resolve_model(ModelSettings(provider.model))[1] == provider.provider
        key, models = lists[provider.provider]
        assert key == provider.key
        assert all(m.startswith(f"{provider.provider}/") for m in models)
        if models:  # litellm lists no OpenRouter models offline: the preferred one stands alone
            assert provider.model in models, provider
    assert credentialed_models({}) == {}


def test_a_configured_api_base_is_the_only_server_asked(
    serve: Callable[[dict[str, Route]], RouteServer],
) -> None:
    named = serve({"/v1/models": json_route(OPENAI_LIST)})
    other = serve({"/api/tags": json_route(OLLAMA_TAGS)})
    environ = {"ANTHROPIC_API_KEY": "sk-y"}
    found = asyncio.run(first_model(environ, [other.root_url], f"{named.root_url}/v1"))
    assert found is not None and found.api_base == f"{named.root_url}/v1"
    assert not other.paths  # neither the key nor the other servers were used
    assert asyncio.run(first_model(environ, [other.root_url], closed_port_url())) is None
