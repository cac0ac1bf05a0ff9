"""A scripted server speaking Anthropic's Messages API on a real socket, with its prompt cache.

Replies stream as Anthropic's server-sent events (message_start, content blocks with thinking,
signature, text and tool-input deltas, message_delta, message_stop); a request without
`stream: true` gets one JSON message, whose content a reply may give as raw blocks (a server
tool's `server_tool_use` and `web_search_tool_result`, text with `citations`). The cache follows
Anthropic's rules closely enough to check pleat's breakpoints: a request's prefix is cached up
to its last `cache_control` mark (tools, then system, then message blocks, in that order); a
later request reads the longest cached prefix that ends at one of its own marks or within 20
blocks before one; what lies between that and its last mark is written; the rest is plain
input. Usage reports input_tokens, cache_creation_input_tokens and cache_read_input_tokens
separately, as Anthropic does.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback_server import LoopbackServer

# Characters per token for the server's own count (the usual rule of thumb).
CHARS_PER_TOKEN = 4
# Blocks Anthropic looks back from each breakpoint for an earlier cached prefix.
LOOKBACK_BLOCKS = 20
# Characters per streamed delta, so the client must assemble pieces.
DELTA_CHARS = 9


def tokens_of(obj: Any) -> int:
    return max(1, len(json.dumps(obj, sort_keys=True)) // CHARS_PER_TOKEN)


@dataclass
class Reply:
    """One assistant reply: optional thinking (with its signature), text, tool uses."""

    text: str = ""
    thinking: str | None = None
    signature: str = ""
    tool_uses: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # The content blocks of a reply not streamed, as they are (None: made from the text).
    blocks: list[dict[str, Any]] | None = None


@dataclass
class Received:
    """One request and the usage the server billed for it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    usage: dict[str, int]


def blocks_of(body: dict[str, Any]) -> list[tuple[Any, bool]]:
    """(block, marked) in Anthropic's cache order: tools, system blocks, message blocks."""
    units: list[tuple[Any, bool]] = []
    for tool in body.get("tools") or []:
        units.append((tool, "cache_control" in tool))
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    for block in system:
        units.append((block, "cache_control" in block))
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            units.append(({"role": message["role"], **block}, "cache_control" in block))
    return units


class PromptCache:
    """Anthropic's prompt cache, as far as a test needs it (no lifetimes)."""

    def __init__(self) -> None:
        self._written: set[str] = set()

    def bill(self, body: dict[str, Any]) -> dict[str, int]:
        units = blocks_of(body)
        sizes = [tokens_of({k: v for k, v in u.items() if k != "cache_control"}) for u, _ in units]
        digests = []
        running = hashlib.sha256()
        for unit, _ in units:
            clean = {k: v for k, v in unit.items() if k != "cache_control"}
            running.update(json.dumps(clean, sort_keys=True).encode())
            digests.append(running.hexdigest())
        marks = [i for i, (_, marked) in enumerate(units) if marked]
        read_end = 0  # units [0, read_end) come from the cache
        for mark in marks:
            for end in range(mark, max(-1, mark - LOOKBACK_BLOCKS), -1):
                if digests[end] in self._written:
                    read_end = max(read_end, end + 1)
                    break
        write_end = marks[-1] + 1 if marks else 0
        for mark in marks:
            self._written.add(digests[mark])
        read = sum(sizes[:read_end])
        written = sum(sizes[read_end:write_end]) if write_end > read_end else 0
        plain = sum(sizes[max(read_end, write_end) :])
        return {
            "input_tokens": plain,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read,
        }


class AnthropicServer(LoopbackServer):
    """Serves scripted replies at http://127.0.0.1:<port> (a context manager)."""

    def __init__(self, api_key: str, fallback: Callable[[dict[str, Any]], Reply]) -> None:
        self.api_key = api_key
        self.fallback = fallback
        self.script: deque[Reply] = deque()
        self.requests: list[Received] = []
        self.cache = PromptCache()
        super().__init__(self._handler_class())

    @property
    def base_url(self) -> str:
        return self.root_url

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                if headers.get("x-api-key") != server.api_key:
                    self._error(401, "authentication_error", "invalid x-api-key")
                    return
                if not self.path.rstrip("/").endswith("/messages"):
                    self._error(404, "not_found_error", f"no route {self.path}")
                    return
                with server._lock:
                    usage = server.cache.bill(body)
                    server.requests.append(Received(self.path, headers, body, usage))
                    reply = server.script.popleft() if server.script else server.fallback(body)
                if body.get("stream"):
                    self._stream(body, reply, usage)
                else:
                    self._whole(body, reply, usage)

            def _whole(self, body: dict[str, Any], reply: Reply, usage: dict[str, int]) -> None:
                text = [{"type": "text", "text": reply.text}] if reply.text else []
                message = {
                    "id": f"msg_{len(server.requests):03d}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "claude"),
                    "content": reply.blocks if reply.blocks is not None else text,
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {**usage, "output_tokens": tokens_of(reply.blocks or reply.text)},
                }
                payload = json.dumps(message).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _error(self, status: int, kind: str, message: str) -> None:
                payload = json.dumps(
                    {"type": "error", "error": {"type": kind, "message": message}}
                ).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _event(self, name: str, data: dict[str, Any]) -> None:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

            def _stream(self, body: dict[str, Any], reply: Reply, usage: dict[str, int]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                message = {
                    "id": f"msg_{len(server.requests):03d}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "claude"),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {**usage, "output_tokens": 1},
                }
                self._event("message_start", {"type": "message_start", "message": message})
                index = 0
                if reply.thinking is not None:
                    self._block(index, {"type": "thinking", "thinking": ""})
                    for i in range(0, len(reply.thinking), DELTA_CHARS):
                        piece = reply.thinking[i : i + DELTA_CHARS]
                        self._delta(index, {"type": "thinking_delta", "thinking": piece})
                    self._delta(index, {"type": "signature_delta", "signature": reply.signature})
                    self._stop(index)
                    index += 1
                if reply.text:
                    self._block(index, {"type": "text", "text": ""})
                    for i in range(0, len(reply.text), DELTA_CHARS):
                        piece = reply.text[i : i + DELTA_CHARS]
                        self._delta(index, {"type": "text_delta", "text": piece})
                    self._stop(index)
                    index += 1
                for number, (name, arguments) in enumerate(reply.tool_uses):
                    call_id = f"toolu_{len(server.requests):03d}_{number}"
                    self._block(
                        index, {"type": "tool_use", "id": call_id, "name": name, "input": {}}
                    )
                    raw = json.dumps(arguments)
                    for i in range(0, len(raw), DELTA_CHARS):
                        piece = raw[i : i + DELTA_CHARS]
                        self._delta(index, {"type": "input_json_delta", "partial_json": piece})
                    self._stop(index)
                    index += 1
                stop = "tool_use" if reply.tool_uses else "end_turn"
                output = tokens_of([reply.thinking or "", reply.text, reply.tool_uses])
                self._event(
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": output},
                    },
                )
                self._event("message_stop", {"type": "message_stop"})
                self.wfile.flush()
                with server._lock:
                    server.requests[-1].usage["output_tokens"] = output

            def _block(self, index: int, block: dict[str, Any]) -> None:
                self._event(
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": block},
                )

            def _delta(self, index: int, delta: dict[str, Any]) -> None:
                self._event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )

            def _stop(self, index: int) -> None:
                self._event("content_block_stop", {"type": "content_block_stop", "index": index})

        return Handler
