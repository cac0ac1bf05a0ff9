"""One web page downloaded for web_fetch: bounded in time and size, redirects followed on one site.

httpx (imported when a page is fetched: it takes a tenth of a second) speaks HTTP/1.1 on the
event loop, so Esc cancels a fetch at once and closes its connection. Each request carries no
cookie and no credential (httpx reads no .netrc; cookies a server sets are refused); the
proxy settings of the environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY) and its CA
bundle (SSL_CERT_FILE) are honoured as for pleat's model calls, loopback never going through a
proxy. Redirects are followed by hand, each hop checked: on the same site (web_address.py), and
when the permission rules would let a fetch of the new address run as freely as the call's
(`follows`, which the agent answers: a deny rule for a path, an allow rule for one host only),
they are followed; otherwise they are reported, not followed, so that the model fetches the new
address in a call of its own, which the permission rules judge again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from tools.base import ToolError
from tools.html_markdown import MAX_TAGS
from tools.image_file import MAX_IMAGE_BYTES
from tools.web_address import WebAddress, quoted, web_address
from tools.web_inflate import ACCEPTED_CODINGS, BoundedBody
from tools.web_text import ContentKind, declared_kind, media_type, sniffed_kind

if TYPE_CHECKING:
    import httpx

# Seconds to open a connection (TCP and TLS): a reachable server answers in well under one;
# ten covers a slow link without leaving the user waiting on an address that drops packets.
CONNECT_SECONDS = 10.0
# Seconds for the whole fetch, redirects included: a documentation page arrives in a second or
# two; thirty bounds a server that stalls or trickles a byte at a time (opencode's default too).
TOTAL_SECONDS = 30.0
# Bytes of a page read at most, after decompression: the longest single-page manuals (the Rust
# book's print page is 1.9 MB) fit, and converting 5 MiB of HTML to markdown takes about three
# seconds of one core; past it reading stops and the result says the page was cut. What reaches
# the model is bounded again by the window (tools/output_guard.py keeps the rest for paging).
MAX_PAGE_BYTES = 5 * 1024 * 1024
# Redirects followed within one site before giving up: real sites use one to three (http to
# https, a trailing slash, a version alias); browsers allow 20, but a chain longer than ten is
# a loop in all but name.
MAX_REDIRECTS = 10
# Characters of a server's reason phrase or of an error kept in a message.
REASON_CHARS = 60
ERROR_CHARS = 200
# What web_fetch prefers: markdown (some documentation sites serve it when asked), then HTML,
# then any text; anything else is still accepted and judged by its Content-Type.
ACCEPT = "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5"
# Hosts a proxy from the environment never sees: a proxy cannot reach this machine's loopback.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
# HTTP statuses that redirect (with a Location header).
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class FetchLimits:
    """The bounds of one fetch (the defaults above; tests make them small)."""

    connect_seconds: float = CONNECT_SECONDS
    total_seconds: float = TOTAL_SECONDS
    max_bytes: int = MAX_PAGE_BYTES
    max_redirects: int = MAX_REDIRECTS
    max_tags: int = MAX_TAGS  # of an HTML page converted to markdown (tools/html_markdown.py)


@dataclass(frozen=True)
class Page:
    """A response's body, up to the limit (for an image, the most providers accept). `kind`
    "binary": the body was not read."""

    asked: WebAddress
    address: WebAddress  # where the body came from, after redirects on the same site
    status: int
    reason: str
    content_type: str  # the header as sent ("" without one)
    kind: ContentKind
    body: bytes
    cut: bool  # the page is longer than the limit: only its first max_bytes are in body
    length: int | None  # the Content-Length the server announced, if any


@dataclass(frozen=True)
class Redirect:
    """A redirect not followed (to another site, or to an address the permission rules judge
    differently: `elsewhere` False): the model may fetch `target` itself."""

    asked: WebAddress
    address: WebAddress
    status: int
    target: WebAddress
    elsewhere: bool = True


# Whether a redirect to an address may be followed within the call (the permission rules').
Follows = Callable[[WebAddress], bool]


async def download(
    address: WebAddress, limits: FetchLimits, follows: Follows | None = None
) -> Page | Redirect:
    """GET `address` within `limits`, following a redirect on the same site that `follows`
    allows (None: any); ToolError with one line when it cannot be had."""
    import httpx

    try:
        async with asyncio.timeout(limits.total_seconds), _client(limits) as client:
            return await _follow(client, address, limits, follows)
    except TimeoutError:
        raise ToolError(
            f"gave up on {address} after {limits.total_seconds:g} s (web_fetch's time limit): "
            "the server had not sent the whole page"
        ) from None
    except httpx.ConnectTimeout:
        raise ToolError(
            f"could not connect to {address.origin} within {limits.connect_seconds:g} s"
        ) from None
    except (httpx.HTTPError, httpx.InvalidURL) as error:
        raise ToolError(_error_line(error, address)) from None


def _client(limits: FetchLimits) -> httpx.AsyncClient:
    """A client for one fetch: its headers, no cookies, the time limits, the environment's proxy
    (not for loopback), redirects left to _follow."""
    import httpx

    no_cookies = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    return httpx.AsyncClient(
        headers={
            "User-Agent": user_agent(),
            "Accept": ACCEPT,
            "Accept-Encoding": ", ".join(ACCEPTED_CODINGS),
        },
        cookies=no_cookies,
        timeout=httpx.Timeout(None, connect=limits.connect_seconds),
        follow_redirects=False,
        trust_env=True,
        mounts={f"all://{host}": None for host in LOOPBACK_HOSTS},
    )


def user_agent() -> str:
    """`pleat/VERSION (web_fetch)`: a server can tell an agent's fetch from a browser's."""
    from importlib import metadata

    try:
        version = metadata.version("pleat-agent")
    except metadata.PackageNotFoundError:
        return "pleat (web_fetch)"
    return f"pleat/{version} (web_fetch)"


async def _follow(
    client: httpx.AsyncClient, asked: WebAddress, limits: FetchLimits, follows: Follows | None
) -> Page | Redirect:
    seen = {asked.url}
    current = asked
    for _ in range(limits.max_redirects + 1):
        request = client.build_request("GET", current.url)
        if str(request.url) != current.url:  # httpx would ask for something else than judged
            raise ToolError(f"pleat cannot fetch {quoted(current.url)} exactly as written")
        response = await client.send(request, stream=True)
        try:
            location = response.headers.get("location")
            if response.status_code in REDIRECT_STATUSES and location is not None:
                target = _redirect_target(current, location)
                if not current.same_site(target):
                    return Redirect(asked, current, response.status_code, target)
                if follows is not None and not follows(target):
                    return Redirect(asked, current, response.status_code, target, False)
                if target.url in seen:
                    raise ToolError(f"{asked} redirects in a loop (back to {target})")
                seen.add(target.url)
                current = target
                continue
            return await _read(response, asked, current, limits)
        finally:
            await response.aclose()
    raise ToolError(
        f"{asked} redirects more than {limits.max_redirects} times; gave up before {current}"
    )


def _redirect_target(current: WebAddress, location: str) -> WebAddress:
    try:
        return web_address(urljoin(current.url, location.strip()))
    except ToolError as error:
        raise ToolError(
            f"{current} redirects to {quoted(location)}, which web_fetch does not follow: {error}"
        ) from None


async def _read(
    response: httpx.Response, asked: WebAddress, address: WebAddress, limits: FetchLimits
) -> Page:
    content_type = response.headers.get("content-type", "")
    kind = declared_kind(media_type(content_type))
    length = _length(response.headers.get("content-length"))
    reason = response.reason_phrase[:REASON_CHARS]
    status = response.status_code
    if kind == "binary":  # refused on its type alone: not a byte of it is read
        return Page(asked, address, status, reason, content_type, kind, b"", False, length)
    limit = MAX_IMAGE_BYTES if kind == "image" else limits.max_bytes
    body = BoundedBody(response.headers.get("content-encoding", ""), limit)
    async for raw in response.aiter_raw():
        body.feed(raw)
        if body.cut:
            break
    data = body.finish()
    kind = kind or sniffed_kind(data)
    return Page(asked, address, status, reason, content_type, kind, data, body.cut, length)


def _length(header: str | None) -> int | None:
    if header is None or not header.strip().isdigit():
        return None
    return int(header.strip())


def _error_line(error: Exception, address: WebAddress) -> str:
    """One line for a failed fetch, naming the origin and what went wrong."""
    import httpx

    detail = " ".join(str(error).split())[:ERROR_CHARS] or type(error).__name__
    if isinstance(error, httpx.ProxyError):
        return f"the proxy refused to fetch {address}: {detail}"
    if isinstance(error, httpx.ConnectError):
        return f"could not connect to {address.origin}: {detail}"
    if isinstance(error, httpx.RemoteProtocolError):
        return f"{address.origin} did not answer in valid HTTP: {detail}"
    if isinstance(error, (httpx.ReadError, httpx.WriteError)):
        return f"the connection to {address.origin} failed: {detail}"
    return f"fetching {address} failed: {type(error).__name__}: {detail}"
