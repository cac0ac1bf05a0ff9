"""A fetched body's pieces: bounded decompression, charset decoding, and HTML turned to markdown."""

from __future__ import annotations

import codecs
import gzip
import zlib

import pytest

from tools.base import ToolError
from tools.html_markdown import html_to_markdown
from tools.web_inflate import BoundedBody
from tools.web_text import declared_kind, decode_body, sniffed_kind

TEXT = b"".join(b"line %d of the page\n" % n for n in range(2_000))


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


# How each body is sent, by name (the names are the test ids: the compressed bytes hold a time
# stamp, and test ids must be the same in every pytest worker).
SENT = {
    "plain": ("", TEXT),
    "identity": ("identity", TEXT),
    "gzip": ("gzip", gzip.compress(TEXT)),
    "x-gzip": ("x-gzip", gzip.compress(TEXT)),
    "gzip-two-members": ("gzip", gzip.compress(TEXT[:999]) + gzip.compress(TEXT[999:])),
    "deflate-zlib": ("deflate", zlib.compress(TEXT)),
    "deflate-raw": ("deflate", raw_deflate(TEXT)),  # what some servers send as deflate
    "gzip-then-identity": ("GZIP, identity", gzip.compress(TEXT)),
}


@pytest.mark.parametrize("name", SENT)
@pytest.mark.parametrize("piece", [1, 7, 65_536])
def test_bodies_decode_whole_in_any_pieces(name: str, piece: int) -> None:
    coding, sent = SENT[name]
    body = BoundedBody(coding, 10 * len(TEXT))
    for start in range(0, len(sent), piece):
        body.feed(sent[start : start + piece])
    assert body.finish() == TEXT and not body.cut


@pytest.mark.parametrize("coding", ["", "gzip", "deflate"])
def test_bodies_stop_at_the_limit(coding: str) -> None:
    sent = {"": TEXT, "gzip": gzip.compress(TEXT), "deflate": zlib.compress(TEXT)}[coding]
    body = BoundedBody(coding, 1_000)
    body.feed(sent)
    assert body.finish() == TEXT[:1_000] and body.cut


def test_a_compressed_stream_that_yields_nothing_still_stops() -> None:
    empty_members = gzip.compress(b"") * 1_000  # 20 KB that decode to nothing
    body = BoundedBody("gzip", 5_000)
    for start in range(0, len(empty_members), 1_000):
        body.feed(empty_members[start : start + 1_000])
    assert body.cut and body.finish() == b""


def test_broken_compression_is_one_line() -> None:
    body = BoundedBody("gzip", 1_000)
    with pytest.raises(ToolError, match=r"^the page's gzip compression is broken: "):
        body.feed(b"this is not gzip")


@pytest.mark.parametrize(
    ("media", "kind"),
    [
        ("text/html", "html"),
        ("application/xhtml+xml", "html"),
        ("text/markdown", "text"),
        ("application/json", "text"),
        ("application/vnd.api+json", "text"),
        ("application/rss+xml", "text"),
        ("image/png", "image"),
        ("image/webp", "image"),
        ("image/svg+xml", "text"),  # an SVG is XML: its source is text
        ("image/tiff", "binary"),
        ("application/pdf", "binary"),
        ("application/octet-stream", None),
        ("", None),
    ],
)
def test_kinds_by_media_type(media: str, kind: str | None) -> None:
    assert declared_kind(media) == kind


def test_kinds_by_first_bytes() -> None:
    assert sniffed_kind(b"\n  <!DOCTYPE html><p>x") == "html"
    assert sniffed_kind(codecs.BOM_UTF8 + b"<html>") == "html"
    assert sniffed_kind(b"plain words") == "text"
    assert sniffed_kind(codecs.BOM_UTF16_LE + "hi".encode("utf-16-le")) == "text"
    assert sniffed_kind(b"PK\x03\x04\x00\x00zip") == "binary"
    assert sniffed_kind(b"\x89PNG\r\n\x1a\n\x00\x00") == "image"


@pytest.mark.parametrize(
    ("body", "content_type", "text", "charset"),
    [
        ("héllo".encode(), "text/plain", "héllo", "utf-8"),
        ("héllo".encode("cp1252"), "text/plain; charset=latin1", "héllo", "cp1252"),
        ("héllo".encode("utf-16"), "text/plain; charset=latin1", "héllo", "utf-16-le"),  # BOM
        (codecs.BOM_UTF8 + "héllo".encode(), "text/plain; charset=cp1252", "héllo", "utf-8"),
        ('<meta charset="koi8-r">привет'.encode("koi8_r"), "text/html", None, "koi8-r"),
        (b'<meta charset="utf-16">hi', "text/html", '<meta charset="utf-16">hi', "utf-8"),
        (b"bad \xff byte", "text/plain; charset=utf-8", "bad \ufffd byte", "utf-8"),
    ],
)
def test_charsets(body: bytes, content_type: str, text: str | None, charset: str) -> None:
    kind = "html" if "html" in content_type else "text"
    decoded = decode_body(body, content_type, kind)
    assert decoded.charset == charset and decoded.note is None
    if text is not None:
        assert decoded.text == text


@pytest.mark.parametrize("label", ["klingon", "unicode_escape", "rot13", "zlib", "undefined"])
def test_charsets_pleat_cannot_read_fall_back_to_utf8(label: str) -> None:
    decoded = decode_body(b"caf\xc3\xa9 \\u202e", f"text/plain; charset={label}", "text")
    assert decoded.text == "café \\u202e"  # an escape in the text stays an escape
    assert decoded.note == (
        f"the page declares the charset {label!r}, which pleat cannot read; read as UTF-8"
    )


def test_code_blocks_keep_their_language_from_highlighters() -> None:
    page = """
    <div class="highlight-python3 notranslate"><div class="highlight"><pre>
<span class="k">import</span> <span class="nn">asyncio</span>
</pre></div></div>
    <div class="highlight highlight-source-rust"><pre>fn main() {}</pre></div>
    <pre><code class="lang-js">let a = 1;</code></pre>
    <div class="highlight-default"><div class="highlight"><pre>plain</pre></div></div>
    """
    text = html_to_markdown(page, "https://docs.example.org/").text
    assert "```python3\nimport asyncio\n```" in text
    assert "```rust\nfn main() {}\n```" in text
    assert "```js\nlet a = 1;\n```" in text
    assert "```\nplain\n```" in text


def test_code_blocks_keep_their_blank_lines_and_underscores() -> None:
    page = "<p>call __init__ and *args</p><pre>a = 1   \n\n\n\nb = 2</pre>"
    text = html_to_markdown(page, "https://x.org/").text
    assert text.startswith("call __init__ and *args")
    assert "```\na = 1   \n\n\n\nb = 2\n```" in text


def test_links_and_images_point_somewhere_fetchable() -> None:
    page = """<base href="https://cdn.example.org/v2/">
    <a href="api.html">api</a> <a href="#top">top</a> <a href="JavaScript:run()">run</a>
    <a href="data:text/html,hi">inline</a> <a href="https://other.org/x">other</a>
    <img src="pic.png" alt="a picture"> <img src="data:image/png;base64,AAAA" alt="inline pic">
    """
    text = html_to_markdown(page, "https://docs.example.org/guide/").text
    assert "[api](https://cdn.example.org/v2/api.html)" in text
    assert "[top](#top)" in text
    assert "run" in text and "JavaScript" not in text
    assert "inline" in text and "data:" not in text
    assert "[other](https://other.org/x)" in text
    assert "![a picture](https://cdn.example.org/v2/pic.png)" in text
    assert "inline pic" in text and "AAAA" not in text


def test_only_the_main_content_is_kept_when_the_page_marks_it() -> None:
    page = """<header><h1>Site</h1></header><div role="navigation">menu</div>
    <div role="main"><h1>The article</h1><p>words</p></div><footer>legal</footer>"""
    converted = html_to_markdown(page, "https://x.org/")
    assert converted.text == "# The article\n\nwords"
    empty_main = "<main>  </main><p>the real text</p>"
    assert html_to_markdown(empty_main, "https://x.org/").text == "the real text"


def test_control_characters_and_odd_line_breaks_stay_text() -> None:
    text = html_to_markdown("<p>a\x1b[31mb\x0bc\u2028d</p>", "https://x.org/").text
    assert text == "a\x1b[31mb\x0bc\u2028d"
