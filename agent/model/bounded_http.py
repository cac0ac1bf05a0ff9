"""One HTTP GET with a size cap, for asking a local model server what it serves (no library:
litellm's HTTP clients take seconds to import, and this must answer within one).

The caller bounds the time (agent.model.local_servers.probe_servers); here every byte of the reply
is hostile: the whole reply is read up to a cap, the status line and headers are parsed strictly,
and a chunked body is decoded within the same cap.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

# Bytes of status line and headers at most: a real server sends a few hundred.
MAX_HEAD_BYTES = 16 * 1024


class HttpGetError(Exception):
    """The server could not be asked, or its reply is not a usable HTTP response (one line)."""


async def http_get(url: str, max_body_bytes: int) -> tuple[int, bytes]:
    """(status, body) of `GET url`, the body at most `max_body_bytes` (more is an error).
    Raises HttpGetError; OSError never escapes (a closed port, a reset, a bad address)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpGetError(f"not an http(s) URL: {url}")
    secure = parts.scheme == "https"
    try:
        port = parts.port or (443 if secure else 80)
    except ValueError:
        raise HttpGetError(f"bad port in {url}") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n"
        "User-Agent: pleat\r\nConnection: close\r\n\r\n"
    ).encode("ascii", "replace")
    context: Any = None
    if secure:  # imported only for https (local servers speak http): it costs start-up time
        import ssl

        context = ssl.create_default_context()
    try:
        reader, writer = await asyncio.open_connection(parts.hostname, port, ssl=context)
    except (OSError, UnicodeError) as error:  # ssl.SSLError is an OSError
        raise HttpGetError(f"cannot connect: {error}") from None
    try:
        writer.write(request)
        await writer.drain()
        data = await reader.read(MAX_HEAD_BYTES + max_body_bytes + 1)
        while data and len(data) <= MAX_HEAD_BYTES + max_body_bytes:
            more = await reader.read(MAX_HEAD_BYTES + max_body_bytes + 1 - len(data))
            if not more:
                break
            data += more
    except OSError as error:
        raise HttpGetError(f"connection failed: {error}") from None
    finally:
        writer.close()
    if len(data) > MAX_HEAD_BYTES + max_body_bytes:
        raise HttpGetError(f"reply larger than {max_body_bytes:,} bytes")
    return parse_response(data, max_body_bytes)


def parse_response(data: bytes, max_body_bytes: int) -> tuple[int, bytes]:
    """(status, body) of a whole HTTP/1.x response read until the server closed it."""
    head, separator, body = data.partition(b"\r\n\r\n")
    if not separator or len(head) > MAX_HEAD_BYTES:
        raise HttpGetError("not an HTTP response (no end of headers)")
    lines = head.split(b"\r\n")
    status = lines[0].split(b" ", 2)
    if len(status) < 2 or not status[0].startswith(b"HTTP/1.") or not status[1].isdigit():
        raise HttpGetError("not an HTTP response (bad status line)")
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            raise HttpGetError("not an HTTP response (bad header line)")
        headers[name.strip().lower()] = value.strip()
    if b"chunked" in headers.get(b"transfer-encoding", b"").lower():
        body = _dechunk(body, max_body_bytes)
    elif (length := headers.get(b"content-length")) is not None:
        if not length.isdigit():
            raise HttpGetError("not an HTTP response (bad content-length)")
        if len(body) < int(length):
            raise HttpGetError("the reply was cut short")
        body = body[: int(length)]
    if len(body) > max_body_bytes:
        raise HttpGetError(f"reply larger than {max_body_bytes:,} bytes")
    return int(status[1]), body


def _dechunk(data: bytes, max_body_bytes: int) -> bytes:
    """The body of a chunked transfer encoding, at most `max_body_bytes`."""
    out = bytearray()
    at = 0
    while True:
        end = data.find(b"\r\n", at)
        if end < 0:
            raise HttpGetError("the reply was cut short (chunked)")
        size_text = data[at:end].split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise HttpGetError("not an HTTP response (bad chunk size)") from None
        if size < 0 or len(out) + size > max_body_bytes:
            raise HttpGetError(f"reply larger than {max_body_bytes:,} bytes")
        if size == 0:
            return bytes(out)
        start = end + 2
        if len(data) < start + size:
            raise HttpGetError("the reply was cut short (chunked)")
        out += data[start : start + size]
        at = start + size + 2  # the CRLF after the chunk's data
