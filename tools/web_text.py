"""What a fetched body is (a web page, text, or something web_fetch does not read), and its text.

The kind comes from the Content-Type header, or, when the server sends none or a generic one,
from the body's first bytes. The text is decoded with the charset the page declares (a byte
order mark first, then the header, then an HTML page's `<meta charset>`), else UTF-8; an
unknown charset falls back to UTF-8 with a note, and bytes that do not decode become U+FFFD:
decoding never fails.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Literal

from tools.image_format import is_image

ContentKind = Literal["html", "text", "image", "binary"]

# Media types of the images pleat can show a model (tools/image_format.py knows their headers).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
# Media types read as a web page and converted to markdown.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Media types outside text/* that are text all the same (data, code, configuration), besides
# any `+json` or `+xml` type: passed through as they are.
TEXT_TYPES = frozenset(
    {"application/json", "application/xml", "application/javascript", "application/ecmascript",
     "application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
     "application/x-sh", "application/sql", "application/graphql", "application/x-ndjson",
     "application/jsonl", "application/x-tex", "application/rtf"}
)  # fmt: skip
# Media types that say nothing of what the body is: the body's first bytes decide.
GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})
# Bytes at the start of a body looked at to guess its kind, and of an HTML page searched for its
# `<meta charset>` (HTML's own prescan reads 1024; pages with long heads put it later).
SNIFF_BYTES = 1024
META_SCAN_BYTES = 4096
# How an HTML page starts (after a byte order mark and white space), in lower case.
HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<!--")
# A charset declared in a `<meta>` of an HTML page: `<meta charset="x">`, or the charset of
# `<meta http-equiv="Content-Type" content="text/html; charset=x">`.
META_CHARSET = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]{1,40})""", re.IGNORECASE
)
# Labels the web reads as windows-1252, a superset of what they name (the WHATWG Encoding
# standard): decoding with it turns the bytes Latin-1 leaves as C1 controls into characters.
WINDOWS_1252_LABELS = frozenset(
    {"iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "ascii", "us-ascii", "iso_8859-1",
     "cp819", "ibm819", "windows-1252"}
)  # fmt: skip
# Python codecs that are not charsets a page can be written in: they read escapes in the text
# (`\\u202e` would become the character), need strict errors, or always fail.
NOT_CHARSETS = frozenset({"unicode-escape", "raw-unicode-escape", "undefined", "idna", "punycode",
                          "charmap"})  # fmt: skip
# Byte order marks, which beat every declaration (as browsers do).
BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def media_type(content_type: str) -> str:
    """`text/html; charset=utf-8` -> `text/html` (lower case, parameters dropped)."""
    return content_type.split(";", 1)[0].strip().lower()


def declared_kind(media: str) -> ContentKind | None:
    """The kind a media type says, or None when it says nothing (no type, octet-stream)."""
    if media in GENERIC_TYPES:
        return None
    if media in HTML_TYPES:
        return "html"
    if media in IMAGE_TYPES:
        return "image"
    if media.startswith("text/") or media in TEXT_TYPES or media.endswith(("+json", "+xml")):
        return "text"
    return "binary"


def sniffed_kind(body: bytes) -> ContentKind:
    """The kind of a body whose type was not said: an image by its header, HTML by how it
    starts, binary when it holds NUL bytes (text never does, UTF-16 aside, which has its byte
    order mark), else text."""
    start = body[:SNIFF_BYTES]
    if is_image(start):
        return "image"
    for bom, _ in BOMS:
        if start.startswith(bom):
            start = start[len(bom) :]
            if bom != codecs.BOM_UTF8:
                return "text"
            break
    if start.lstrip().lower().startswith(HTML_STARTS):
        return "html"
    return "binary" if b"\0" in start else "text"


@dataclass(frozen=True)
class PageText:
    """A body decoded: the text, the charset it was read with, and a note when the declared
    one could not be used (None otherwise)."""

    text: str
    charset: str
    note: str | None = None


def decode_body(body: bytes, content_type: str, kind: ContentKind) -> PageText:
    """The body as text (see the module): never raises."""
    for bom, name in BOMS:
        if body.startswith(bom):
            return PageText(body[len(bom) :].decode(name, errors="replace"), name)
    label = _header_charset(content_type)
    if label is None and kind == "html":
        label = _meta_charset(body)
    if label is None:
        return PageText(body.decode("utf-8", errors="replace"), "utf-8")
    codec = _codec_name(label)
    if codec is not None:
        try:
            return PageText(body.decode(codec, errors="replace"), codec)
        except (UnicodeError, LookupError):  # a codec that cannot decode bytes at all
            pass
    note = f"the page declares the charset {label[:40]!r}, which pleat cannot read; read as UTF-8"
    return PageText(body.decode("utf-8", errors="replace"), "utf-8", note)


def _header_charset(content_type: str) -> str | None:
    for parameter in content_type.split(";")[1:]:
        key, _, value = parameter.partition("=")
        if key.strip().lower() == "charset":
            value = value.strip().strip("\"'").strip()
            return value or None
    return None


def _meta_charset(body: bytes) -> str | None:
    found = META_CHARSET.search(body[:META_SCAN_BYTES])
    if found is None:
        return None
    label = found.group(1).decode("ascii").lower()
    # A page that could be read to find this is not UTF-16: HTML reads such a meta as UTF-8.
    return "utf-8" if label.startswith("utf-16") else label


def _codec_name(label: str) -> str | None:
    """Python's codec for a charset label, if it is a text encoding; None otherwise."""
    label = label.lower()
    if label in WINDOWS_1252_LABELS:
        return "cp1252"
    try:
        info = codecs.lookup(label)
    except LookupError:
        return None
    # Only real text encodings: codecs.lookup also finds bytes-to-bytes codecs (zlib, base64)
    # and text-to-text ones (rot13), which no page is written in.
    if not getattr(info, "_is_text_encoding", True) or info.name in NOT_CHARSETS:
        return None
    return info.name
