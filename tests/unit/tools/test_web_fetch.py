"""web_fetch through the registry against a real loopback web server: pages come back as markdown,
and every way a server can misbehave ends in one clear line, within the limits."""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.images.parts import Attachments
from agent.model.tokens import count_text
from sessions.archive import ChunkArchive
from sessions.image_store import SessionImages
from sessions.outputs import KeptOutputs
from tests.support import images
from tests.support.hints import next_call
from tests.support.web_server import Route, WebServer
from tools.base import ToolContext, ToolOutput
from tools.output_budget import OutputBudget
from tools.registry import ToolRegistry, default_registry
from tools.web_download import FetchLimits
from tools.web_fetch import WebFetchTool

# A page limit small enough for a test to pass it with little data, and time limits no real
# fetch from the local server reaches, however busy the machine (a 4 MiB image under load took
# over a second): only a hang would. The time limit's own test sets a small one against a server
# that never answers, where it must fire.
SMALL_LIMITS = FetchLimits(connect_seconds=60.0, total_seconds=120.0, max_bytes=64 * 1024)
HTML = {"Content-Type": "text/html"}
# Seconds a test waits for the server to see something happen: only a hang gets near it.
HANG_GUARD_SECONDS = 10.0

PAGE = b"""<!doctype html>
<html><head><title>Widget  docs</title>
<style>.secret-style { color: red } STYLE-TEXT</style>
<script>var leaked = "SCRIPT-TEXT";</script>
</head><body>
<nav><a href="/">NAV-TEXT home</a></nav>
<main>
<h1>Widgets</h1>
<p>Make one with <code>make_widget()</code>, see <a href="/docs/api.html">the API</a>.</p>
<h2>Install</h2>
<ul><li>first step</li><li>second step</li></ul>
<pre><code class="language-python">def make_widget(size):
    return Widget(size)
</code></pre>
<script>document.write("SCRIPT-TEXT-2")</script>
</main>
</body></html>
"""


@pytest.fixture(scope="module")
def web_server() -> Iterator[WebServer]:
    with WebServer() as server:
        yield server


@pytest.fixture
def site(web_server: WebServer) -> WebServer:
    web_server.reset({"/guide/widgets.html": Route(PAGE, headers=HTML)})
    return web_server


async def fetch(
    workspace: Path, url: str, limits: FetchLimits = SMALL_LIMITS, **more: str
) -> ToolOutput:
    registry = ToolRegistry([WebFetchTool(limits)])
    return await registry.dispatch("web_fetch", {"url": url, **more}, ToolContext(workspace))


async def test_a_page_comes_back_as_markdown(site: WebServer, workspace: Path) -> None:
    url = f"{site.root_url}/guide/widgets.html"
    out = await fetch(workspace, url, prompt="how do I make a widget?")
    assert not out.is_error, out.text
    lines = out.text.splitlines()
    assert lines[0] == f"Fetched {url} (HTTP 200 OK, text/html, {len(PAGE):,} bytes), as markdown:"
    assert lines[1] == "Title: Widget docs"
    assert "# Widgets" in lines and "## Install" in lines
    assert "- first step" in lines and "- second step" in lines
    assert f"[the API]({site.root_url}/docs/api.html)" in out.text  # made absolute
    assert "```python\ndef make_widget(size):\n    return Widget(size)\n```" in out.text
    assert "`make_widget()`" in out.text
    for noise in ("SCRIPT-TEXT", "STYLE-TEXT", "secret-style", "NAV-TEXT", "<"):
        assert noise not in out.text
    assert out.meta["status"] == 200 and out.meta["url"] == url
    (seen,) = site.requests
    assert seen.headers["user-agent"].startswith("pleat")
    assert seen.headers["accept-encoding"] == "gzip, deflate"
    assert "cookie" not in seen.headers and "authorization" not in seen.headers


async def test_the_default_registry_has_web_fetch_and_it_fetches(
    site: WebServer, workspace: Path
) -> None:
    registry = default_registry()
    tool = registry.get("web_fetch")
    assert tool is not None and not tool.read_only and tool.main_argument == "url"
    out = await registry.dispatch(
        "web_fetch", {"url": f"{site.root_url}/guide/widgets.html"}, ToolContext(workspace)
    )
    assert "# Widgets" in out.text and tool.writes({"url": "x"}) == ()


async def test_text_and_json_pass_through_as_they_are(site: WebServer, workspace: Path) -> None:
    text = "*not* <b>markup</b>\n\x1b[31mred\x1b[0m stays text\n"
    data = {"name": "widget", "sizes": [1, 2]}
    site.routes["/notes.txt"] = Route(text.encode(), headers={"Content-Type": "text/plain"})
    site.routes["/api"] = Route(
        json.dumps(data).encode(), headers={"Content-Type": "application/json"}
    )
    notes = await fetch(workspace, f"{site.root_url}/notes.txt")
    assert notes.text.splitlines()[0].endswith(f"text/plain, {len(text.encode())} bytes), as text:")
    assert notes.text.endswith("\n\n" + text)  # control characters are text, not removed
    api = await fetch(workspace, f"{site.root_url}/api")
    assert json.loads(api.text.split("\n\n", 1)[1]) == data


@pytest.mark.parametrize(
    "url",
    ["ftp://127.0.0.1/file", "file:///etc/passwd", "docs.python.org/3/", "javascript:alert(1)"],
)
async def test_only_http_and_https_urls_are_fetched(
    site: WebServer, workspace: Path, url: str
) -> None:
    out = await fetch(workspace, url)
    assert out.is_error
    assert out.text == (f"web_fetch reads http:// and https:// URLs only, and {url!r} is not one")
    assert site.requests == []


async def test_a_url_with_credentials_is_refused(site: WebServer, workspace: Path) -> None:
    host = site.root_url.removeprefix("http://")
    out = await fetch(workspace, f"http://user:pw@{host}/guide/widgets.html")
    assert out.is_error and "user name or password" in out.text
    assert site.requests == []


async def test_a_page_past_the_size_limit_is_cut_and_says_so(
    site: WebServer, workspace: Path
) -> None:
    rows = "".join(f"row {n}\n" for n in range(200_000)).encode()  # 1.5 MB
    site.routes["/big.txt"] = Route(rows, headers={"Content-Type": "text/plain"})
    out = await fetch(workspace, f"{site.root_url}/big.txt")
    assert not out.is_error
    assert out.text.splitlines()[1] == (
        "[the page is larger than 64 KiB (web_fetch's size limit): only its first 64 KiB were "
        "read, so its end is missing]"
    )
    content = out.text.split("\n\n", 1)[1]
    assert content.startswith("row 0\nrow 1\n")
    assert len(content.encode()) == 64 * 1024 and out.meta["bytes"] == 64 * 1024
    assert "row 199999" not in content


async def test_a_server_that_stalls_is_given_up_at_the_time_limit(
    site: WebServer, workspace: Path
) -> None:
    site.routes["/slow"] = Route(stall=True, headers={"Content-Type": "text/html"})
    hasty = FetchLimits(total_seconds=0.3)
    out = await fetch(workspace, f"{site.root_url}/slow", hasty)
    assert out.is_error
    assert out.text == (
        f"gave up on {site.root_url}/slow after 0.3 s (web_fetch's time limit): the server had "
        "not sent the whole page"
    )
    assert site.hung_up.wait(HANG_GUARD_SECONDS)  # the connection was closed, not left open


async def test_cancelling_a_fetch_closes_its_connection(site: WebServer, workspace: Path) -> None:
    """Esc cancels the turn's task: the fetch stops at once, its connection closed."""
    site.routes["/slow"] = Route(stall=True, headers={"Content-Type": "text/html"})
    patient = FetchLimits(total_seconds=3_600)
    task = asyncio.create_task(fetch(workspace, f"{site.root_url}/slow", patient))
    assert await asyncio.to_thread(site.stalled.wait, HANG_GUARD_SECONDS)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(site.hung_up.wait, HANG_GUARD_SECONDS)


async def test_redirects_on_the_site_are_followed_without_cookies(
    site: WebServer, workspace: Path
) -> None:
    site.routes["/old"] = Route(
        status=301, headers={"Location": "/older", "Set-Cookie": "session=abc; Path=/"}
    )
    site.routes["/older"] = Route(status=302, headers={"Location": "guide/widgets.html"})
    out = await fetch(workspace, f"{site.root_url}/old")
    assert not out.is_error, out.text
    assert out.text.startswith(
        f"Fetched {site.root_url}/guide/widgets.html (redirected from {site.root_url}/old) "
    )
    assert "# Widgets" in out.text
    assert site.targets() == ["/old", "/older", "/guide/widgets.html"]
    assert all("cookie" not in seen.headers for seen in site.requests)


async def test_a_redirect_loop_is_stopped(site: WebServer, workspace: Path) -> None:
    site.routes["/a"] = Route(status=302, headers={"Location": "/b"})
    site.routes["/b"] = Route(status=307, headers={"Location": f"{site.root_url}/a"})
    out = await fetch(workspace, f"{site.root_url}/a")
    assert out.is_error
    assert out.text == f"{site.root_url}/a redirects in a loop (back to {site.root_url}/a)"
    assert site.targets() == ["/a", "/b"]


async def test_a_long_redirect_chain_is_given_up(site: WebServer, workspace: Path) -> None:
    for n in range(30):
        site.routes[f"/hop/{n}"] = Route(status=302, headers={"Location": f"/hop/{n + 1}"})
    out = await fetch(workspace, f"{site.root_url}/hop/0")
    assert out.is_error
    assert out.text == (
        f"{site.root_url}/hop/0 redirects more than 10 times; gave up before {site.root_url}/hop/11"
    )
    assert site.targets() == [f"/hop/{n}" for n in range(11)]


async def test_a_redirect_to_another_site_is_reported_not_followed(
    site: WebServer, workspace: Path
) -> None:
    elsewhere = site.root_url.replace("127.0.0.1", "localhost") + "/target"
    site.routes["/away"] = Route(status=302, headers={"Location": elsewhere})
    out = await fetch(workspace, f"{site.root_url}/away")
    assert not out.is_error
    assert out.text.splitlines() == [
        f"{site.root_url}/away redirects (HTTP 302) to another site: {elsewhere}",
        "web_fetch does not follow a redirect to another site by itself; to read it, call "
        f'web_fetch with url "{elsewhere}".',
    ]
    assert site.targets() == ["/away"]  # the target was never asked for


async def test_a_redirect_is_followed_only_as_far_as_the_call_permits(
    site: WebServer, workspace: Path
) -> None:
    """Each same-site hop is asked of ToolContext.same_permission (the agent's rules): the
    first it refuses ends the fetch with a report of it, and is never requested."""
    site.routes["/docs/a"] = Route(status=302, headers={"Location": "/docs/b"})
    site.routes["/docs/b"] = Route(status=302, headers={"Location": "/private/c"})
    asked: list[dict[str, object]] = []

    def judge(args: dict[str, object]) -> bool:
        asked.append(args)
        return "/private/" not in str(args["url"])

    registry = ToolRegistry([WebFetchTool(SMALL_LIMITS)])
    context = ToolContext(workspace, same_permission=judge)
    out = await registry.dispatch("web_fetch", {"url": f"{site.root_url}/docs/a"}, context)
    assert not out.is_error
    assert out.text.startswith(
        f"{site.root_url}/docs/b redirects (HTTP 302) to {site.root_url}/private/c, which the "
        "permission rules do not allow as they allowed this fetch, so web_fetch did not follow"
    )
    assert asked == [{"url": f"{site.root_url}/docs/b"}, {"url": f"{site.root_url}/private/c"}]
    assert site.targets() == ["/docs/a", "/docs/b"]


async def test_a_redirect_out_of_http_is_refused(site: WebServer, workspace: Path) -> None:
    site.routes["/file"] = Route(status=301, headers={"Location": "file:///etc/passwd"})
    out = await fetch(workspace, f"{site.root_url}/file")
    assert out.is_error
    assert out.text.startswith(
        f"{site.root_url}/file redirects to 'file:///etc/passwd', which web_fetch does not "
        "follow: web_fetch reads http:// and https:// URLs only"
    )


async def test_gzip_and_deflate_pages_are_decoded(site: WebServer, workspace: Path) -> None:
    site.routes["/gz"] = Route(
        gzip.compress(PAGE), headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}
    )
    site.routes["/deflate"] = Route(
        zlib.compress(PAGE), headers={"Content-Type": "text/html", "Content-Encoding": "deflate"}
    )
    for path in ("/gz", "/deflate"):
        out = await fetch(workspace, site.root_url + path)
        assert not out.is_error, out.text
        assert "# Widgets" in out.text and out.meta["bytes"] == len(PAGE)


async def test_a_gzip_bomb_stops_at_the_size_limit(site: WebServer, workspace: Path) -> None:
    bomb = gzip.compress(b" " * (64 * 1024 * 1024), compresslevel=9)  # 64 MiB in 64 KB
    site.routes["/bomb"] = Route(
        bomb, headers={"Content-Type": "text/plain", "Content-Encoding": "gzip"}
    )
    out = await fetch(workspace, f"{site.root_url}/bomb")
    assert "only its first 64 KiB were read" in out.text
    assert out.meta["bytes"] == 64 * 1024  # never more than the limit was decoded


async def test_an_encoding_not_asked_for_is_refused(site: WebServer, workspace: Path) -> None:
    site.routes["/br"] = Route(
        b"\x1b\x00", headers={"Content-Type": "text/html", "Content-Encoding": "br"}
    )
    out = await fetch(workspace, f"{site.root_url}/br")
    assert out.is_error
    assert out.text == (
        "the server sent the page encoded as 'br', which web_fetch did not ask for and cannot read"
    )


async def test_an_image_is_attached_for_a_model_that_sees_images(
    site: WebServer, workspace: Path, tmp_path: Path
) -> None:
    site.routes["/shot.png"] = Route(images.png(40, 30), headers={"Content-Type": "image/png"})
    site.routes["/shot"] = Route(images.gif(5, 4))  # no type: its bytes say what it is
    site.routes["/huge.png"] = Route(
        images.png() + bytes(4 * 1024 * 1024), headers={"Content-Type": "image/png"}
    )
    site.routes["/fake.png"] = Route(b"<h1>not a png</h1>", headers={"Content-Type": "image/png"})
    registry = ToolRegistry([WebFetchTool(SMALL_LIMITS)])
    seeing = Attachments(SessionImages(tmp_path / "images"), lambda: None)
    blind = Attachments(SessionImages(tmp_path / "images"), lambda: "m does not accept images")

    async def fetch_image(path: str, attachments: Attachments) -> ToolOutput:
        ctx = ToolContext(workspace, images=attachments)
        return await registry.dispatch("web_fetch", {"url": site.root_url + path}, ctx)

    shot = await fetch_image("/shot.png", seeing)
    assert not shot.is_error, shot.text
    assert shot.text.startswith(f"{site.root_url}/shot.png is a PNG image (40×30, ")
    assert shot.text.endswith("it is attached for you to see in the message after the tool results")
    (attached,) = shot.images
    assert (attached.width, attached.height, attached.media_type) == (40, 30, "image/png")
    gif = await fetch_image("/shot", seeing)
    assert gif.text.startswith(f"{site.root_url}/shot is a GIF image (5×4, ") and gif.images
    unseen = await fetch_image("/shot.png", blind)
    assert unseen.is_error and unseen.text.endswith("not shown: m does not accept images")
    assert not unseen.images
    huge = await fetch_image("/huge.png", seeing)
    assert huge.is_error and "is an image of more than 3.75 MiB" in huge.text
    fake = await fetch_image("/fake.png", seeing)
    assert fake.is_error and "is not a PNG, JPEG, GIF or WebP image" in fake.text


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("audio/mpeg", b"ID3\x04" + bytes(1000)),
        ("image/tiff", b"II*\x00" + bytes(1000)),
        ("application/pdf", b"%PDF-1.7\n" + bytes(1000)),
        ("application/octet-stream", b"\x7fELF\x02\x01\x01\x00" + bytes(1000)),
    ],
    ids=["mp3", "tiff", "pdf", "elf"],
)
async def test_binary_content_is_refused(
    site: WebServer, workspace: Path, content_type: str, body: bytes
) -> None:
    site.routes["/file"] = Route(body, headers={"Content-Type": content_type})
    out = await fetch(workspace, f"{site.root_url}/file")
    assert out.is_error
    assert out.text.startswith(f"{site.root_url}/file is {content_type}")
    assert out.text.endswith("not a web page or text, so web_fetch did not read it")
    assert "\x00" not in out.text and "PNG" not in out.text


async def test_an_unknown_charset_is_read_as_utf8_with_a_note(
    site: WebServer, workspace: Path
) -> None:
    body = "<p>café – naïve</p><p>broken \xff byte</p>".encode("utf-8", "surrogateescape")
    body = body.replace(b"\xc3\xbf", b"\xff")  # one byte that is not UTF-8
    site.routes["/klingon"] = Route(body, headers={"Content-Type": "text/html; charset=klingon"})
    out = await fetch(workspace, f"{site.root_url}/klingon")
    assert not out.is_error
    assert out.text.splitlines()[1] == (
        "[the page declares the charset 'klingon', which pleat cannot read; read as UTF-8]"
    )
    assert "café – naïve" in out.text and "broken \ufffd byte" in out.text


async def test_declared_charsets_are_honoured(site: WebServer, workspace: Path) -> None:
    site.routes["/latin"] = Route(
        "<p>café €</p>".encode("cp1252"), headers={"Content-Type": "text/html; charset=ISO-8859-1"}
    )
    site.routes["/meta"] = Route(
        '<html><head><meta charset="shift_jis"></head><p>日本語</p>'.encode("shift_jis"),
        headers={"Content-Type": "text/html"},
    )
    latin = await fetch(workspace, f"{site.root_url}/latin")
    assert latin.text.endswith("\n\ncafé €")  # ISO-8859-1 is read as windows-1252, as browsers do
    meta = await fetch(workspace, f"{site.root_url}/meta")
    assert meta.text.endswith("\n\n日本語")


async def test_an_error_status_is_an_error_with_the_start_of_its_page(
    site: WebServer, workspace: Path
) -> None:
    site.routes["/gone"] = Route(
        b"<h1>Not here</h1>" + b"<p>filler</p>" * 2_000, 404, {"Content-Type": "text/html"}
    )
    out = await fetch(workspace, f"{site.root_url}/gone")
    assert out.is_error
    assert out.text.startswith(f"Fetched {site.root_url}/gone (HTTP 404 Not Found, text/html")
    assert "# Not here" in out.text
    assert out.text.endswith("[… the rest of the HTTP 404 Not Found page is not shown]")
    assert len(out.text) < 2_500


async def test_a_closed_port_is_one_line(workspace: Path) -> None:
    with WebServer() as gone:
        url = f"{gone.root_url}/x"
    out = await fetch(workspace, url)
    assert out.is_error and "\n" not in out.text
    assert out.text.startswith(f"could not connect to {url.removesuffix('/x')}: ")


async def test_a_page_built_by_scripts_says_so(site: WebServer, workspace: Path) -> None:
    site.routes["/app"] = Route(
        b'<html><body><div id="root"></div><script>render()</script></body></html>',
        headers={"Content-Type": "text/html"},
    )
    out = await fetch(workspace, f"{site.root_url}/app")
    assert "it is probably built by scripts in a browser" in out.text
    assert out.text.endswith("(the page is empty)")


async def test_a_page_nested_too_deep_comes_back_as_plain_text(
    site: WebServer, workspace: Path
) -> None:
    deep = b"<div>" * 5_000 + b"deep words" + b"</div>" * 5_000
    site.routes["/deep"] = Route(deep, headers={"Content-Type": "text/html"})
    out = await fetch(workspace, f"{site.root_url}/deep")
    assert not out.is_error
    assert "[the page nests too deep to convert to markdown: its plain text follows]" in out.text
    assert out.text.endswith("\n\ndeep words")


async def test_a_page_of_tags_is_converted_up_to_the_tag_limit(
    site: WebServer, workspace: Path
) -> None:
    """Conversion costs per tag: a page with more tags than the limit (100,000; 1,000 here, to
    be quick) is converted up to its limit, and says so."""
    paragraphs = b"".join(b"<p>p%d</p>" % n for n in range(1_500))
    site.routes["/tags"] = Route(paragraphs, headers=HTML)
    out = await fetch(workspace, f"{site.root_url}/tags", FetchLimits(max_tags=1_000))
    assert not out.is_error
    assert "[the page has more than 1,000 tags: only its first 5,390 characters were converted" in (
        out.text
    )
    assert "p0\n\np1\n" in out.text and out.text.endswith("\n\np499")


async def test_html_without_a_content_type_is_sniffed(site: WebServer, workspace: Path) -> None:
    site.routes["/bare"] = Route(b"  <!DOCTYPE html><h1>Bare</h1>")
    site.routes["/nul"] = Route(b"\x00\x01\x02binary")
    bare = await fetch(workspace, f"{site.root_url}/bare")
    assert "# Bare" in bare.text and "no content type" in bare.text.splitlines()[0]
    nul = await fetch(workspace, f"{site.root_url}/nul")
    assert nul.is_error and "not a web page or text" in nul.text


async def test_the_environments_proxy_is_used_but_not_for_loopback(
    site: WebServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HTTP_PROXY is honoured (the request goes to the proxy, in absolute form), and a loopback
    address never goes through it (the proxy here would be a closed port)."""
    with WebServer() as closed:
        dead_proxy = closed.root_url
    monkeypatch.setenv("HTTP_PROXY", dead_proxy)
    out = await fetch(workspace, f"{site.root_url}/guide/widgets.html")
    assert "# Widgets" in out.text  # straight to the loopback server
    monkeypatch.setenv("HTTP_PROXY", site.root_url)  # the test server as the proxy
    site.routes["http://docs.example.test/guide"] = Route(PAGE, headers=HTML)
    out = await fetch(workspace, "http://docs.example.test/guide")
    assert not out.is_error, out.text
    assert "# Widgets" in out.text
    assert "[the API](http://docs.example.test/docs/api.html)" in out.text
    assert site.targets()[-1] == "http://docs.example.test/guide"


async def test_a_huge_page_is_cut_to_the_window_and_read_on_with_read_archive(
    site: WebServer, tmp_path: Path, workspace: Path
) -> None:
    """The page fits the download limit but not the model's budget: the registry cuts it, keeps
    it whole, and the note's read_archive calls lead to its last line."""
    paragraphs = b"".join(b"<p>paragraph %d of the guide</p>" % n for n in range(3_000))
    site.routes["/long"] = Route(
        b"<html><body>" + paragraphs + b"</body></html>", headers={"Content-Type": "text/html"}
    )
    outputs = KeptOutputs(tmp_path / "outputs")
    ctx = ToolContext(workspace, OutputBudget(600, count_text), outputs, page_tokens=600)
    registry = default_registry(archive=ChunkArchive(tmp_path / "chunks", "s"))
    first = await registry.dispatch("web_fetch", {"url": f"{site.root_url}/long"}, ctx)
    assert ctx.budget.fits(first.text) and first.meta["truncated"]
    assert first.text.startswith(f"Fetched {site.root_url}/long")
    assert first.text.endswith("paragraph 2999 of the guide")
    seen: list[str] = [first.text]
    call = next_call(first.text)
    while call is not None:
        assert len(seen) < 200, "the notes never end"
        page = await registry.dispatch(call[0], call[1], ctx)
        assert not page.is_error and ctx.budget.fits(page.text), page.text
        seen.append(page.text)
        call = next_call(page.text)
    read = "\n".join(seen)
    for n in range(3_000):
        assert f"paragraph {n} of the guide" in read
