"""A scripted OpenAI-compatible chat server on a real socket, for end-to-end tests and benchmarks.

Tests push the replies the "model" gives (text, tool calls, HTTP errors, dropped connections,
stalls, garbled or choiceless streams, replies cut at max tokens) or a function that computes a
reply from the request. The server streams them as SSE exactly like
the OpenAI API (tool-call arguments split across deltas, a final usage chunk), records every
request it received, and models a provider's prefix prompt cache so usage reports cached tokens.
`GET /v1/models` lists the models it accepts, as pleat's model discovery asks.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback_server import LoopbackServer

# Characters per token for the server's own token estimate: the usual rule of thumb for English
# and code under OpenAI's tokenizers; the server only needs a stable, plausible count.
CHARS_PER_TOKEN = 4
# Arguments and text are streamed in pieces of this many characters, so clients must really
# assemble deltas (a whole tool-call JSON never arrives in one chunk unless it is tiny).
DELTA_CHARS = 7


def estimate_tokens(obj: Any) -> int:
    """The server's token estimate of any JSON value (at least 1)."""
    text = obj if isinstance(obj, str) else json.dumps(obj, sort_keys=True)
    return max(1, len(text) // CHARS_PER_TOKEN)


@dataclass
class Text:
    """A final assistant answer; `finish` overrides the finish reason ("length": cut at the
    output token limit)."""

    text: str
    finish: str | None = None
    reasoning: str = ""  # streamed first as `reasoning_content` deltas (DeepSeek, vLLM, Ollama)


@dataclass
class ToolCalls:
    """An assistant turn that calls tools: (name, arguments) pairs, with optional text first."""

    calls: list[tuple[str, dict[str, Any] | str]]
    text: str = ""
    finish: str | None = None
    reasoning: str = ""


@dataclass
class Error:
    """An HTTP error with an OpenAI-style error body."""

    status: int
    message: str
    code: str | None = None
    type: str = "invalid_request_error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Drop:
    """Start streaming `text`, then cut the connection after `after_chunks` content chunks."""

    text: str = "partial answer that never ends"
    after_chunks: int = 2


@dataclass
class Stall:
    """Accept the request and send nothing for `seconds` (a hung provider)."""

    seconds: float


@dataclass
class Garbage:
    """A 200 event stream whose data lines are not JSON (`data: {not json`), after `text`
    streamed normally: a broken proxy or a provider bug."""

    text: str = ""
    lines: int = 3  # more than one: a client that skips a bad line must meet the next


@dataclass
class EmptyChoices:
    """A well-formed stream of `chunks` chunks whose `choices` are all empty (no content, no
    finish reason), then the usage chunk and [DONE]."""

    chunks: int = 3  # any number: none of them carries anything


Reply = Text | ToolCalls | Error | Drop | Stall | Garbage | EmptyChoices
Responder = Callable[[dict[str, Any]], Reply]


def context_overflow(limit: int, asked: int) -> Error:
    """The 400 OpenAI returns when a prompt exceeds the model's window."""
    return Error(
        400,
        f"This model's maximum context length is {limit} tokens. However, your messages "
        f"resulted in {asked} tokens. Please reduce the length of the messages.",
        code="context_length_exceeded",
    )


class PrefixCache:
    """A provider prompt cache: a request is served from cache for its longest common prefix
    (tool schemas, then messages one by one) with any earlier request."""

    def __init__(self) -> None:
        self._seen: list[list[str]] = []

    def cached_tokens(self, units: list[str]) -> int:
        best = 0
        for earlier in self._seen:
            tokens = 0
            for mine, theirs in zip(units, earlier, strict=False):
                if mine != theirs:
                    break
                tokens += estimate_tokens(mine)
            best = max(best, tokens)
        self._seen.append(units)
        return best


@dataclass
class ReceivedRequest:
    """One request as the server saw it."""

    body: dict[str, Any]
    headers: dict[str, str]
    prompt_tokens: int
    cached_tokens: int

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])


class ScriptedServer(LoopbackServer):
    """Serve scripted replies at http://127.0.0.1:<port>/v1 (use as a context manager)."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        models: set[str] | None = None,
        context_window: int | None = None,
        fallback: Responder | None = None,
    ) -> None:
        self.api_key = api_key
        self.models = models
        self.context_window = context_window
        self.fallback = fallback
        self.script: deque[Reply | Responder] = deque()
        self.requests: list[ReceivedRequest] = []
        self.listings = 0  # GET /v1/models answered (the models listed are `models`)
        self.cache = PrefixCache()
        super().__init__(self._handler_class())

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    def wait_for_requests(self, count: int, timeout: float = 30.0) -> None:
        """Block until `count` requests have arrived (call from a thread, not the event loop)."""
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(self.requests)} of {count} requests arrived")
            time.sleep(0.005)

    def push(self, *replies: Reply | Responder) -> None:
        with self._lock:
            self.script.extend(replies)

    # -- request handling -------------------------------------------------------------

    def _next_reply(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[Reply, int, int]:
        units = [json.dumps(body.get("tools", []), sort_keys=True)]
        units += [json.dumps(m, sort_keys=True) for m in body.get("messages", [])]
        prompt_tokens = sum(estimate_tokens(u) for u in units)
        with self._lock:
            if (
                self.api_key is not None
                and headers.get("authorization") != f"Bearer {self.api_key}"
            ):
                rejection: Reply | None = Error(
                    401, "Incorrect API key provided.", code="invalid_api_key"
                )
            elif self.models is not None and body.get("model", "") not in self.models:
                model = body.get("model", "")
                rejection = Error(
                    404, f"The model `{model}` does not exist.", code="model_not_found"
                )
            elif self.context_window is not None and prompt_tokens > self.context_window:
                rejection = context_overflow(self.context_window, prompt_tokens)
            else:
                rejection = None
            cached = 0 if rejection is not None else self.cache.cached_tokens(units)
            self.requests.append(ReceivedRequest(body, headers, prompt_tokens, cached))
            if rejection is not None:
                return rejection, prompt_tokens, 0
            item = self.script.popleft() if self.script else self.fallback
            if item is None:
                exhausted = Error(
                    500, "scripted server: the script is exhausted", type="server_error"
                )
                return exhausted, prompt_tokens, 0
        reply = item(body) if callable(item) else item
        return reply, prompt_tokens, cached

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # silence stderr
                pass

            def do_GET(self) -> None:
                """`GET /v1/models`: the models the server accepts, as an OpenAI-compatible
                server lists them (what pleat's discovery asks); nothing else is served."""
                if self.path.rstrip("/") != "/v1/models":
                    self._send_error(Error(404, f"no route {self.path}"))
                    return
                with server._lock:
                    server.listings += 1
                listed = sorted(server.models or ())
                payload = json.dumps(
                    {
                        "object": "list",
                        "data": [
                            {"id": m, "object": "model", "owned_by": "scripted"} for m in listed
                        ],
                    }
                ).encode()
                self._send_json(payload)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send_error(Error(404, f"no route {self.path}"))
                    return
                reply, prompt_tokens, cached = server._next_reply(body, headers)
                if isinstance(reply, Error):
                    self._send_error(reply)
                elif isinstance(reply, Stall):
                    time.sleep(reply.seconds)
                    self.close_connection = True
                elif isinstance(reply, Garbage | EmptyChoices):
                    self._stream_broken(body, reply, prompt_tokens, cached)
                elif body.get("stream"):
                    self._stream(body, reply, prompt_tokens, cached)
                else:
                    self._whole(body, reply, prompt_tokens, cached)

            def _send_error(self, err: Error) -> None:
                payload = json.dumps(
                    {"error": {"message": err.message, "type": err.type, "code": err.code}}
                ).encode()
                self._send_json(payload, err.status, err.headers)

            def _send_json(
                self, payload: bytes, status: int = 200, headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def _usage(self, prompt: int, cached: int, completion: int) -> dict[str, Any]:
                return {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                    "prompt_tokens_details": {"cached_tokens": cached},
                }

            def _chunk(
                self, body: dict[str, Any], delta: dict[str, Any], finish: str | None
            ) -> bytes:
                obj = {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }
                return b"data: " + json.dumps(obj).encode() + b"\n\n"

            def _start_stream(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()

            def _choiceless_chunk(self, body: dict[str, Any], **extra: Any) -> bytes:
                """A chunk with `choices: []` (how OpenAI sends the final usage)."""
                obj = {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": body.get("model", "scripted"),
                    "choices": [],
                    **extra,
                }
                return b"data: " + json.dumps(obj).encode() + b"\n\n"

            def _stream_broken(
                self, body: dict[str, Any], reply: Garbage | EmptyChoices, prompt: int, cached: int
            ) -> None:
                self._start_stream()
                w = self.wfile
                if isinstance(reply, Garbage):
                    w.write(self._chunk(body, {"role": "assistant", "content": ""}, None))
                    for i in range(0, len(reply.text), DELTA_CHARS):
                        w.write(
                            self._chunk(body, {"content": reply.text[i : i + DELTA_CHARS]}, None)
                        )
                    w.write(b"data: {not json\n\n" * reply.lines)
                else:
                    for _ in range(reply.chunks):
                        w.write(self._choiceless_chunk(body))
                    w.write(self._choiceless_chunk(body, usage=self._usage(prompt, cached, 0)))
                w.write(b"data: [DONE]\n\n")
                w.flush()

            def _stream(self, body: dict[str, Any], reply: Reply, prompt: int, cached: int) -> None:
                self._start_stream()
                w = self.wfile
                w.write(self._chunk(body, {"role": "assistant", "content": ""}, None))
                reasoning = reply.reasoning if isinstance(reply, Text | ToolCalls) else ""
                for i in range(0, len(reasoning), DELTA_CHARS):
                    piece = {"reasoning_content": reasoning[i : i + DELTA_CHARS]}
                    w.write(self._chunk(body, piece, None))
                text = reply.text if isinstance(reply, Text | ToolCalls | Drop) else ""
                pieces = [text[i : i + DELTA_CHARS] for i in range(0, len(text), DELTA_CHARS)]
                for n, piece in enumerate(pieces):
                    if isinstance(reply, Drop) and n >= reply.after_chunks:
                        w.flush()
                        self.close_connection = True
                        return
                    w.write(self._chunk(body, {"content": piece}, None))
                    w.flush()
                finish = "stop"
                if isinstance(reply, ToolCalls):
                    finish = "tool_calls"
                    for index, (name, args) in enumerate(reply.calls):
                        raw = args if isinstance(args, str) else json.dumps(args)
                        head = {
                            "index": index,
                            "id": f"call_{len(server.requests):03d}_{index}",
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                        w.write(self._chunk(body, {"tool_calls": [head]}, None))
                        for i in range(0, len(raw), DELTA_CHARS):
                            part = {
                                "index": index,
                                "function": {"arguments": raw[i : i + DELTA_CHARS]},
                            }
                            w.write(self._chunk(body, {"tool_calls": [part]}, None))
                if isinstance(reply, Text | ToolCalls) and reply.finish:
                    finish = reply.finish
                w.write(self._chunk(body, {}, finish))
                if (body.get("stream_options") or {}).get("include_usage"):
                    usage = self._usage(prompt, cached, estimate_tokens(text or "x"))
                    w.write(self._choiceless_chunk(body, usage=usage))
                w.write(b"data: [DONE]\n\n")
                w.flush()

            def _whole(self, body: dict[str, Any], reply: Reply, prompt: int, cached: int) -> None:
                message: dict[str, Any] = {
                    "role": "assistant",
                    "content": getattr(reply, "text", ""),
                }
                finish = "stop"
                if isinstance(reply, ToolCalls):
                    finish = "tool_calls"
                    message["tool_calls"] = [
                        {
                            "id": f"call_{len(server.requests):03d}_{i}",
                            "type": "function",
                            "function": {
                                "name": name,
                                "arguments": args if isinstance(args, str) else json.dumps(args),
                            },
                        }
                        for i, (name, args) in enumerate(reply.calls)
                    ]
                payload = json.dumps(
                    {
                        "id": "chatcmpl-scripted",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "scripted"),
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                        "usage": self._usage(
                            prompt, cached, estimate_tokens(message["content"] or "x")
                        ),
                    }
                ).encode()
                self._send_json(payload)

        return Handler
