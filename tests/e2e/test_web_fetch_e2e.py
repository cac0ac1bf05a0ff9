"""`pleat -p` with web_fetch, as a script runs it: the scripted model fetches a page from a local
web server, and the next request carries the page as markdown; without --yes only a rule lets
a fetch run, for its own site alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.web_server import Route, WebServer

# Slow (each test runs pleat headless: litellm's import, once per worker): left out of the
# fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

PAGE = b"""<!doctype html><html><head><title>Gadget guide</title>
<style>body { font: STYLE-TEXT }</style><script>track("SCRIPT-TEXT")</script></head>
<body><main>
<h1>Gadgets</h1>
<ol><li>unpack it</li><li>switch it on</li></ol>
<p>Details in <a href="/ref/gadget.html">the reference</a>.</p>
<pre><code class="language-sh">gadget --start
</code></pre>
</main></body></html>"""


@pytest.fixture
def site() -> Iterator[WebServer]:
    with WebServer({"/guide.html": Route(PAGE, headers={"Content-Type": "text/html"})}) as server:
        yield server


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def test_the_model_reads_a_page_as_markdown(
    server: ScriptedServer, workspace: Path, site: WebServer
) -> None:
    url = f"{site.root_url}/guide.html"
    server.push(
        ToolCalls([("web_fetch", {"url": url, "prompt": "how to start it?"})]),
        Text("Run gadget --start."),
    )
    done = run_pleat(workspace, server, "-p", "how do I start the gadget?")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Run gadget --start."
    (result,) = tool_results(server, 1)
    assert result.startswith(f"Fetched {url} (HTTP 200 OK, text/html, {len(PAGE):,} bytes)")
    assert "Title: Gadget guide" in result
    assert "# Gadgets" in result and "1. unpack it\n2. switch it on" in result
    assert f"[the reference]({site.root_url}/ref/gadget.html)" in result
    assert "```sh\ngadget --start\n```" in result
    assert "SCRIPT-TEXT" not in result and "STYLE-TEXT" not in result
    tools = [tool["function"]["name"] for tool in server.requests[0].body["tools"]]
    assert "web_fetch" in tools
    assert "use web_fetch" in server.requests[0].messages[0]["content"]  # the system prompt
    assert site.targets() == ["/guide.html"]


def test_a_rule_allows_one_site_and_the_rest_is_refused_headless(
    server: ScriptedServer, workspace: Path, site: WebServer, pleat_home: Path
) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text(f'allow = ["web_fetch({site.root_url}/*)"]\n')
    other = site.root_url.replace("127.0.0.1", "localhost")
    server.push(
        ToolCalls(
            [
                ("web_fetch", {"url": f"{site.root_url}/guide.html"}),
                ("web_fetch", {"url": f"{other}/guide.html"}),
            ]
        ),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "read both", yes=False)
    assert done.returncode == 0, done.stderr
    allowed, refused = tool_results(server, 1)
    assert allowed.startswith(f"Fetched {site.root_url}/guide.html") and "# Gadgets" in allowed
    assert refused.startswith(
        "refused: the user did not approve web_fetch: pleat runs headless in ask mode"
    )
    assert refused.endswith(f'e.g. allow = ["web_fetch({other}/*)"]')
    assert site.targets() == ["/guide.html"]  # the refused one never reached the server
    assert "✗ refused" in done.stderr


def test_a_redirect_the_rules_judge_differently_is_reported_not_followed(
    server: ScriptedServer, workspace: Path, site: WebServer, pleat_home: Path
) -> None:
    """A same-site redirect is asked of the rules again: one into a denied path, or out of a
    host-exact allow rule by the `www.` the site check forgives, is not followed (the model may
    fetch it in a call of its own, judged then); one the rules allow alike still is."""
    root = site.root_url
    local = root.replace("127.0.0.1", "localhost")
    www = root.replace("127.0.0.1", "www.localhost")
    site.reset(
        {
            "/docs/intro": Route(status=302, headers={"Location": "/private/secret.txt"}),
            "/docs/old": Route(status=301, headers={"Location": "/docs/new"}),
            "/docs/new": Route(b"the new docs", headers={"Content-Type": "text/plain"}),
            "/private/secret.txt": Route(
                b"THE PRIVATE PAGE", headers={"Content-Type": "text/plain"}
            ),
            "/go": Route(status=302, headers={"Location": f"{www}/page"}),
            "/page": Route(b"the www page", headers={"Content-Type": "text/plain"}),
        }
    )
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text(
        f'allow = ["web_fetch({root}/docs/*)", "web_fetch({local}/*)"]\n'
        f'deny = ["web_fetch({root}/private/*)"]\n'
    )
    server.push(
        ToolCalls(
            [
                ("web_fetch", {"url": f"{root}/docs/intro"}),
                ("web_fetch", {"url": f"{local}/go"}),
                ("web_fetch", {"url": f"{root}/docs/old"}),
            ]
        ),
        Text("done"),
    )
    done = run_pleat(workspace, server, "-p", "read the docs", yes=False)
    assert done.returncode == 0, done.stderr
    private, elsewhere, followed = tool_results(server, 1)
    assert "THE PRIVATE PAGE" not in private
    assert private.startswith(
        f"{root}/docs/intro redirects (HTTP 302) to {root}/private/secret.txt, which the "
        "permission rules do not allow as they allowed this fetch"
    )
    assert elsewhere.startswith(f"{local}/go redirects (HTTP 302) to {www}/page, which the")
    assert followed.startswith(f"Fetched {root}/docs/new (redirected from {root}/docs/old)")
    assert followed.endswith("the new docs")
    assert site.targets() == ["/docs/intro", "/go", "/docs/old", "/docs/new"]
