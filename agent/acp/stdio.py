"""The JSON-RPC streams of `pleat acp`: stdout kept for the protocol alone (whatever else writes
to fd 1, a library or a child process, lands on stderr), and every line from the editor checked
before the SDK reads it, so a line that is not a JSON-RPC message gets a JSON-RPC error."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

# JSON-RPC 2.0's codes for a line that is not JSON, and for JSON that is not a request object.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# Bytes of one line from the editor: a prompt with images and embedded files fits; a longer
# line is an error answered like any malformed one (the SDK's own default is the same 50 MiB).
LINE_LIMIT = 50 * 1024 * 1024


def protocol_stdout() -> int:
    """A private copy of stdout for the protocol; fd 1 and sys.stdout then point at stderr, so a
    stray print or a child's output can never corrupt the JSON-RPC stream."""
    rpc = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return rpc


class _WriteProtocol(asyncio.streams.FlowControlMixin):
    """Flow control for the protocol's pipe (what asyncio's StreamWriter needs to drain)."""


async def streams(rpc_fd: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """(what the SDK reads, what it writes): stdin checked line by line into the first, the
    private stdout behind the second."""
    loop = asyncio.get_running_loop()
    raw = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(raw), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        _WriteProtocol, os.fdopen(rpc_fd, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    checked = asyncio.StreamReader(limit=LINE_LIMIT)
    task = loop.create_task(_check_lines(raw, checked, writer))
    _KEEP.add(task)
    task.add_done_callback(_KEEP.discard)
    return checked, writer


_KEEP: set[asyncio.Task[None]] = set()  # the line checker runs as long as stdin is open


def rejection(line: bytes) -> dict[str, Any] | None:
    """The JSON-RPC error for a line that is no message (None: a message, or a blank line)."""
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return _error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        ident = message.get("id") if isinstance(message, dict) else None
        return _error(ident, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object")
    method = message.get("method")
    if method is not None and not isinstance(method, str):
        return _error(message.get("id"), INVALID_REQUEST, "Invalid Request: method is not a string")
    return None


def _error(ident: Any, code: int, text: str) -> dict[str, Any]:
    valid = ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None
    return {"jsonrpc": "2.0", "id": valid, "error": {"code": code, "message": text}}


async def _check_lines(
    source: asyncio.StreamReader, sink: asyncio.StreamReader, out: asyncio.StreamWriter
) -> None:
    """Pass each message line on; answer every other line with its error (written whole, as
    one write, so it never interleaves with the SDK's own lines)."""
    while True:
        try:
            line = await source.readline()
        except ValueError:  # longer than LINE_LIMIT: what was read of it is dropped
            out.write(_encoded(_error(None, PARSE_ERROR, "Parse error: the line is too long")))
            continue
        if not line:
            sink.feed_eof()
            return
        error = rejection(line)
        if error is not None:
            out.write(_encoded(error))
        elif line.strip():
            sink.feed_data(line if line.endswith(b"\n") else line + b"\n")


def _encoded(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"
