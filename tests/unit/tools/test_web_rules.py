"""Web addresses in their normal form, and permission rules on web_fetch's URL (the `url` kind)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.permissions.policy import ApprovalRequest, Permissions, refuse_headless
from agent.permissions.rules import (
    Rule,
    allowing_rules,
    always_rules,
    denying_rule,
    parse_rule,
)
from tools.base import ToolError
from tools.registry import default_registry
from tools.web_address import web_address
from tools.web_fetch import WebFetchTool

FETCH = WebFetchTool()
DOCS = "web_fetch(https://docs.python.org/*)"


@pytest.mark.parametrize(
    ("written", "normal"),
    [
        ("https://docs.python.org/3/", "https://docs.python.org/3/"),
        ("HTTPS://Docs.Python.ORG:443/3/library/", "https://docs.python.org/3/library/"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com:80/a?b=c#frag", "http://example.com/a?b=c"),
        ("http://127.0.0.1:8000/x/./y/../z", "http://127.0.0.1:8000/x/z"),
        ("https://docs.python.org/3/../../../etc", "https://docs.python.org/etc"),
        ("https://docs.python.org/%7Euser/%2e%2e/x", "https://docs.python.org/x"),
        ("https://h.org/a%2fb?q=%zz", "https://h.org/a%2Fb?q=%25zz"),  # %2F is not a slash
        ("https://h.org/ä?q=ü", "https://h.org/%C3%A4?q=%C3%BC"),
        ("https://bücher.de/", "https://xn--bcher-kva.de/"),
        ("http://[0:0::1]:8080/", "http://[::1]:8080/"),
        ("http://2130706433/", "http://127.0.0.1/"),  # how resolvers read a bare number
        ("http://127.1/", "http://127.0.0.1/"),
        ("  https://example.com/  ", "https://example.com/"),
    ],
)
def test_urls_are_read_into_one_normal_form(written: str, normal: str) -> None:
    assert web_address(written).url == normal
    assert web_address(normal).url == normal  # the normal form is its own normal form


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("ftp://example.com/", "http:// and https:// URLs only"),
        ("file:///etc/passwd", "http:// and https:// URLs only"),
        ("example.com/page", "http:// and https:// URLs only"),
        ("localhost:8000/page", "http:// and https:// URLs only"),
        ("http:/example.com", "http:// and https:// URLs only"),
        ("https://docs.python.org@evil.com/", "user name or password"),
        ("https://user:pw@example.com/", "user name or password"),
        ("http://a.com\\@b.com/", "user name or password"),
        ("http://a.com\\b.com/", "no host pleat can read"),
        ("http://exa mple.com/", "a space or a control character"),
        ("http://example.com/\x1b[2J", "a space or a control character"),
        ("http://example.com:99999/", "bad port"),
        ("http://example.com:0/", "bad port"),
        ("http://[::1]evil:80/", "bad IPv6 address"),
        ("http://[fe80::1%25eth0]/", "IPv6 zone"),
        ("http://exa!mple.com/", "no host pleat can read"),
        ("https://straße.de/", "write it in its ASCII form"),  # IDNA 2003 would fetch strasse.de
        ("", "url is empty"),
        ("https://example.com/" + "a" * 3000, "at most 2,048"),
    ],
)
def test_urls_that_could_be_misread_are_refused(written: str, why: str) -> None:
    with pytest.raises(ToolError) as caught:
        web_address(written)
    assert why in str(caught.value) and "\n" not in str(caught.value)


@settings(max_examples=150, deadline=None)
@given(
    host=st.from_regex(r"[a-z0-9]{1,10}(\.[a-z0-9]{1,10}){0,2}", fullmatch=True),
    port=st.integers(1, 65535),
    path=st.text(max_size=40).filter(lambda t: not any(c.isspace() or ord(c) < 32 for c in t)),
    query=st.text(max_size=20).filter(lambda t: not any(c.isspace() or ord(c) < 32 for c in t)),
)
def test_httpx_asks_for_the_normal_form(host: str, port: int, path: str, query: str) -> None:
    """What the rules judge is what is fetched: httpx reads the normal form back unchanged (the
    fetch refuses a URL where it would not)."""
    raw = f"http://{host}:{port}/{path.replace('#', '')}"
    if query.replace("#", ""):
        raw += "?" + query.replace("#", "")
    try:
        address = web_address(raw)
    except ToolError:
        return
    assert str(httpx.URL(address.url)) == address.url


def test_same_site_redirects() -> None:
    http = web_address("http://python.org/a")
    assert http.same_site(web_address("http://python.org/b"))
    assert http.same_site(web_address("https://python.org/a"))  # the upgrade to https
    assert http.same_site(web_address("https://www.python.org/a"))  # www. added
    assert web_address("https://www.python.org/").same_site(web_address("https://python.org/"))
    assert not web_address("https://python.org/").same_site(web_address("http://python.org/"))
    assert not http.same_site(web_address("http://python.org:8080/"))
    assert not http.same_site(web_address("http://docs.python.org/"))
    assert not http.same_site(web_address("http://python.org.evil.com/"))


def allows(rule: str, url: str, workspace: Path) -> bool:
    return bool(allowing_rules([parse_rule(rule)], FETCH, {"url": url}, workspace))


@pytest.mark.parametrize(
    ("rule", "url", "allowed"),
    [
        (DOCS, "https://docs.python.org/3/library/asyncio.html", True),
        (DOCS, "https://docs.python.org", True),
        (DOCS, "HTTPS://DOCS.python.org:443/3/", True),
        (DOCS, "https://docs.python.org/3/../../x", True),
        (DOCS, "http://docs.python.org/3/", False),  # another scheme
        (DOCS, "https://docs.python.org:8443/3/", False),  # another port
        (DOCS, "https://docs.python.org.evil.com/", False),
        (DOCS, "https://docs.python.org@evil.com/", False),
        (DOCS, "https://evil.com/?https://docs.python.org/", False),
        (DOCS, "https://evil.com/https://docs.python.org/", False),
        ("web_fetch(https://docs.python.org/3/*)", "https://docs.python.org/3/../2/x", False),
        ("web_fetch(HTTPS://Docs.Python.org/*)", "https://docs.python.org/3/", True),
        ("web_fetch(domain:docs.python.org)", "http://docs.python.org/any/path", True),
        ("web_fetch(domain:docs.python.org)", "https://docs.python.org:8443/", True),
        ("web_fetch(domain:docs.python.org)", "https://python.org/", False),
        ("web_fetch(domain:*.python.org)", "https://docs.python.org/", True),
        ("web_fetch(domain:*.python.org)", "https://python.org.evil.com/", False),
        ("web_fetch(https://*.python.org/*)", "https://docs.python.org/3/", True),
        ("web_fetch(https://*.python.org/*)", "https://evil.com/.python.org/", False),
        ("web_fetch(https://*.python.org/*)", "https://evil.com/?.python.org/", False),
        ("web_fetch(https://docs.python.org)", "https://docs.python.org/3/any", True),
        ("web_fetch(https://docs.python.org)", "https://docs.python.org.evil.com/", False),
        ("web_fetch(*://docs.python.org/*)", "http://docs.python.org/3/", True),
        ("web_fetch(*)", "https://anything.org/", True),
        ("web_fetch(http://127.0.0.1:8000/*)", "http://localhost:8000/", False),
        ("web_fetch(http://127.0.0.1:8000/*)", "http://127.0.0.1:8000/docs/", True),
        ("web_fetch", "ftp://anything", True),  # a bare rule is every call (the tool refuses it)
    ],
)
def test_url_rules_match_the_normal_form(
    rule: str, url: str, allowed: bool, workspace: Path
) -> None:
    assert allows(rule, url, workspace) is allowed


def test_a_deny_rule_on_a_domain_beats_full_auto(workspace: Path) -> None:
    permissions = Permissions("full-auto", deny=[parse_rule("web_fetch(domain:evil.com)")])
    verdict = permissions.decide(FETCH, {"url": "HTTPS://EVIL.com./x"}, workspace)
    assert verdict.action == "run"  # `evil.com.` is another name: asked, not matched
    verdict = permissions.decide(FETCH, {"url": "https://Evil.com:443/x"}, workspace)
    assert verdict.action == "refuse" and "web_fetch(domain:evil.com)" in verdict.reason
    assert (
        denying_rule(
            [parse_rule("web_fetch(domain:evil.com)")], FETCH, {"url": "https://ok.org"}, workspace
        )
        is None
    )


def test_web_fetch_asks_like_a_command_unless_a_rule_allows_it(workspace: Path) -> None:
    url = {"url": "https://docs.python.org/3/"}
    assert Permissions("ask").decide(FETCH, url, workspace).action == "ask"
    assert Permissions("accept-edits").decide(FETCH, url, workspace).action == "ask"
    assert Permissions("full-auto").decide(FETCH, url, workspace).action == "run"
    allowed = Permissions("ask", allow=[parse_rule(DOCS)])
    assert allowed.decide(FETCH, url, workspace).action == "run"
    elsewhere = allowed.decide(FETCH, {"url": "https://pypi.org/"}, workspace)
    assert elsewhere.action == "ask"
    assert elsewhere.always == (Rule("web_fetch", "https://pypi.org/*"),)


def test_plan_mode_asks_for_web_fetch_instead_of_refusing(workspace: Path) -> None:
    """It changes nothing here, so planning may read the docs: asked (or allowed by a rule)."""
    url = {"url": "https://docs.python.org/3/"}
    assert Permissions("plan").decide(FETCH, url, workspace).action == "ask"
    planning = Permissions("plan", allow=[parse_rule(DOCS)])
    assert planning.decide(FETCH, url, workspace).action == "run"
    run = default_registry().get("run_command")
    assert run is not None
    assert Permissions("plan").decide(run, {"command": "ls"}, workspace).action == "refuse"


@pytest.mark.parametrize(
    ("url", "always"),
    [
        ("https://docs.python.org/3/library/", ("web_fetch(https://docs.python.org/*)",)),
        ("http://127.0.0.1:8000/guide", ("web_fetch(http://127.0.0.1:8000/*)",)),
        ("HTTP://[::1]:80/x", ("web_fetch(http://[::1]/*)",)),
        ("ftp://example.com/", ()),  # refused by the tool: nothing to allow
    ],
)
def test_always_allows_the_site(url: str, always: tuple[str, ...], workspace: Path) -> None:
    rules = always_rules(FETCH, {"url": url}, workspace)
    assert tuple(map(str, rules)) == always
    for rule in rules:  # and what it allows includes the call itself
        assert allows(str(rule), url, workspace)


async def test_headless_refusal_gives_the_rule_that_would_allow_the_site() -> None:
    request = ApprovalRequest(
        "web_fetch", {"url": "https://docs.python.org/3/"}, "GET https://docs.python.org/3/",
        ("web_fetch(https://docs.python.org/*)",),
    )  # fmt: skip
    decision = await refuse_headless(request)
    assert not decision.approved
    assert decision.reason.endswith(
        "allow it with --allow 'web_fetch(https://docs.python.org/*)' or a rule in config.toml, "
        'e.g. allow = ["web_fetch(https://docs.python.org/*)"]'
    )


def test_url_rules_that_can_never_match_are_reported() -> None:
    permissions = Permissions.from_settings(
        "ask",
        ["web_fetch(docs.python.org)", DOCS, "web_fetch(domain:python.org)"],
        ["web_fetch(*evil*)"],
    )
    (problem,) = permissions.rule_problems(default_registry())
    assert problem.startswith('allow rule "web_fetch(docs.python.org)" can never match: ')
    assert "https://docs.python.org/* or domain:docs.python.org" in problem


async def test_the_preview_is_the_request_in_normal_form(workspace: Path) -> None:
    from tools.base import ToolContext

    context = ToolContext(workspace)
    assert await FETCH.preview({"url": "HTTPS://Docs.Python.org/3/"}, context) == (
        "GET https://docs.python.org/3/"
    )
    failing = await FETCH.preview({"url": "file:///etc/passwd"}, context)
    assert failing.splitlines()[1].startswith("(this call will fail: web_fetch reads http://")
