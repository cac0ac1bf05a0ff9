"""A web address as web_fetch fetches it and permission rules match it: http(s), in one normal form.

Every URL the model gives is read into one normal form before anything else looks at it: the
scheme and host in lower case, the default port dropped, `.` and `..` segments and needless
percent-escapes of the path resolved, characters a URL may not hold percent-encoded, the
fragment dropped. The permission rules match that form and the fetch asks for exactly that
form, so `https://docs.python.org/3/../../evil` is judged as what it is. Addresses that could be
read two ways are refused instead: a user name or password before the host (`a.com@b.com`),
a backslash, a host that is not a plain name or an IP address.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from tools.errors import ToolError

# The schemes web_fetch reads; anything else (file:, ftp:, data:, javascript: ...) is refused.
SCHEMES = ("http", "https")
# The port each scheme uses when none is written (dropped from the normal form).
DEFAULT_PORTS = {"http": 80, "https": 443}
# Characters a URL may have: what browsers and servers reliably accept (Claude Code's web
# fetch has the same bound); a longer one is a mistake, or data being carried out in it.
MAX_URL_CHARS = 2048
# Characters quoted back in an error: enough to recognise the URL.
QUOTED_URL_CHARS = 100
# A host name after IDNA encoding: labels of letters, digits, `-` and `_` (which some internal
# hosts have) between dots, an optional final dot. Nothing else may be read as a host.
HOST_NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?")
# What an IPv4 address may look like to the C library's inet_aton, which resolvers use: one to
# four numbers, decimal, octal or hex, between dots.
IPV4_FORMS = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}")
# RFC 3986's unreserved characters: a percent-escape of one of them means the character itself.
UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Characters a path may hold as they are (RFC 3986: unreserved, sub-delims, `:`, `@`, `/`);
# a query may also hold `?`. Any other character is percent-encoded as UTF-8.
PATH_SAFE = UNRESERVED | frozenset("!$&'()*+,;=:@/")
QUERY_SAFE = PATH_SAFE | frozenset("?")
# A percent-escape: `%` and two hex digits.
ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# The error for a host that could be read more than one way.
_UNREADABLE_HOST = "the URL {} has no host pleat can read unambiguously"
# Whitespace and control characters (C0, DEL, C1): never part of a URL pleat fetches.
UNSAFE = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class WebAddress:
    """An http(s) URL in normal form: its parts, and the text rules match and fetches ask for."""

    scheme: str
    host: str  # lower case, ASCII (IDNA); an IPv6 address in brackets
    port: int
    target: str  # the path and query, as sent in the request line

    @property
    def origin(self) -> str:
        """`scheme://host[:port]`, the port only when it is not the scheme's default."""
        port = "" if DEFAULT_PORTS[self.scheme] == self.port else f":{self.port}"
        return f"{self.scheme}://{self.host}{port}"

    @property
    def url(self) -> str:
        return self.origin + self.target

    def __str__(self) -> str:
        return self.url

    def same_site(self, other: WebAddress) -> bool:
        """Whether a redirect from here to `other` stays on the same site, so web_fetch follows
        it: the same scheme, host and port, or the same host moved from http to https (both on
        their default ports), a `www.` added or taken away included (as Claude Code does)."""
        if _without_www(self.host) != _without_www(other.host):
            return False
        if self.scheme == other.scheme:
            return self.port == other.port
        upgrade = (self.scheme, self.port, other.scheme, other.port) == ("http", 80, "https", 443)
        return upgrade


def _without_www(host: str) -> str:
    return host.removeprefix("www.")


def quoted(raw: str) -> str:
    """A URL quoted in an error message, shortened."""
    shown = raw if len(raw) <= QUOTED_URL_CHARS else raw[:QUOTED_URL_CHARS] + "…"
    return repr(shown)


def web_address(raw: str) -> WebAddress:
    """The normal form of `raw`; ToolError with one line saying what is wrong with it."""
    text = raw.strip()
    if not text:
        raise ToolError("url is empty: give a full http:// or https:// URL")
    if len(text) > MAX_URL_CHARS:
        raise ToolError(f"the URL is {len(text):,} characters long; at most {MAX_URL_CHARS:,}")
    if UNSAFE.search(text):
        raise ToolError(
            f"the URL {quoted(text)} holds a space or a control character; encode a space as %20"
        )
    try:
        parts = urlsplit(text)
    except ValueError:  # a bracketed host that is not an IPv6 address, for one
        raise ToolError(_UNREADABLE_HOST.format(quoted(text))) from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES or not text[len(scheme) :].startswith("://"):
        raise ToolError(
            f"web_fetch reads http:// and https:// URLs only, and {quoted(text)} is not one"
        )
    host = _host(parts, text)
    try:
        written = parts.port
    except ValueError:
        raise ToolError(f"the URL {quoted(text)} has a bad port") from None
    port = DEFAULT_PORTS[scheme] if written is None else written
    if port == 0:
        raise ToolError(f"the URL {quoted(text)} has a bad port")
    path = _remove_dot_segments(_normal_escapes(parts.path, PATH_SAFE)) or "/"
    query = _normal_escapes(parts.query, QUERY_SAFE)
    return WebAddress(scheme, host, port, path + (f"?{query}" if query else ""))


def _host(parts: SplitResult, text: str) -> str:
    """The host of a URL, lower case and ASCII; refused when it could be read another way."""
    netloc = parts.netloc
    if "@" in netloc:
        raise ToolError(
            f"the URL {quoted(text)} has a user name or password before its host; "
            "web_fetch sends no credentials, so write the URL without them"
        )
    if "\\" in netloc or not netloc:
        raise ToolError(_UNREADABLE_HOST.format(quoted(text)))
    if netloc.startswith("["):
        literal, _, after = netloc[1:].partition("]")
        if not re.fullmatch(r"(?::[0-9]*)?", after):
            raise ToolError(f"the URL {quoted(text)} has a bad IPv6 address")
        try:
            address = ipaddress.IPv6Address(literal)
        except ValueError:
            raise ToolError(f"the URL {quoted(text)} has a bad IPv6 address") from None
        if address.scope_id is not None:
            raise ToolError(f"the URL {quoted(text)} has an IPv6 zone, which web_fetch refuses")
        return f"[{address.compressed}]"
    name = (parts.hostname or "").lower()
    if not name.isascii():
        name = _ascii_host(name, text)
    if not HOST_NAME.fullmatch(name) or ("xn--" in name and not _valid_punycode(name)):
        raise ToolError(_UNREADABLE_HOST.format(quoted(text)))
    return _dotted_quad(name) or name


def _dotted_quad(name: str) -> str | None:
    """An IPv4 address written another way (`127.1`, `0x7f.0.0.1`, `2130706433`), which the
    system's resolver reads as that address, in its usual dotted form; None for a name."""
    if not IPV4_FORMS.fullmatch(name):
        return None
    try:
        return socket.inet_ntoa(socket.inet_aton(name))
    except OSError:
        return None


def _ascii_host(name: str, text: str) -> str:
    """A non-ASCII host name in its ASCII (punycode) form. Python's IDNA codec follows IDNA
    2003, which maps some characters away (`straße` becomes `strasse`, another domain than
    browsers reach today): a name that does not come back from its ASCII form unchanged is
    refused, so no such host is ever fetched under another name."""
    try:
        encoded = name.encode("idna").decode("ascii")
        same = encoded.encode("ascii").decode("idna") == name
    except UnicodeError:
        same = False
    if not same:
        raise ToolError(
            f"the URL {quoted(text)} has a host name pleat cannot encode unambiguously; write "
            "it in its ASCII form (xn--...)"
        )
    return encoded


def _valid_punycode(name: str) -> bool:
    """Whether every `xn--` label of an ASCII host decodes (a broken one is refused)."""
    try:
        name.encode("ascii").decode("idna")
    except UnicodeError:
        return False
    return True


def _normal_escapes(text: str, safe: frozenset[str]) -> str:
    """Percent-escapes of unreserved characters decoded, the others in upper case; a `%` that
    starts no escape, and every character outside `safe`, percent-encoded as UTF-8."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        escape = ESCAPE.match(text, index) if char == "%" else None
        if escape is not None:
            decoded = chr(int(escape.group(1), 16))
            out.append(decoded if decoded in UNRESERVED else escape.group().upper())
            index += 3
            continue
        if char in safe:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        index += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986's remove_dot_segments: `/a/./b/../c` is `/a/c`; never above the root."""
    output: list[str] = []
    segments = path.split("/")
    for position, segment in enumerate(segments):
        last = position == len(segments) - 1
        if segment == ".":
            if last:
                output.append("")
        elif segment == "..":
            if len(output) > 1:
                output.pop()
            if last:
                output.append("")
        else:
            output.append(segment)
    joined = "/".join(output)
    if path.startswith("/") and not joined.startswith("/"):
        joined = "/" + joined
    return joined
