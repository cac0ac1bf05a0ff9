"""web_search through a SearXNG instance: `GET {url}/search?q=...&format=json`, its results read.

The request is web_fetch's (tools/web_download.py): the address in its normal form, no cookies
nor credentials, the environment's proxy (never for loopback), bounded in time and size,
redirects followed on the same site only. The instance is the user's own choice, written in
config.toml, so a SearXNG on this machine (`http://127.0.0.1:8888`, the usual setup) is
reached as any other; no permission rule of web_fetch's judges it (the query is what
`web_search` rules judge). Its JSON is hostile like any page: bounded, each field checked.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from tools.errors import ToolError
from tools.web_address import web_address
from tools.web_download import FetchLimits, Redirect, download
from tools.web_search_results import SearchFindings, SearchHit

# Seconds for the whole search: SearXNG asks its engines in parallel and answers within its own
# timeout (3 s by default, 10 s at most in its settings); fifteen leaves room for a slow link.
SEARCH_SECONDS = 15.0
# Bytes of an answer read at most: a page of SearXNG's JSON is 20-60 KiB (each result carries
# its engines and scores); 1 MiB is far past any real one, and bounds a hostile one.
MAX_ANSWER_BYTES = 1024 * 1024
# Results read from an answer before the tool bounds them again: SearXNG sends 10-40 a page.
MAX_READ_RESULTS = 100
# Characters of an answer's body quoted in an error (a proxy's or a login page's text).
QUOTED_BODY_CHARS = 120


class SearxngSearcher:
    """Searches one SearXNG instance (`url`: its base, as written in [web_search])."""

    def __init__(self, url: str, limits: FetchLimits | None = None) -> None:
        self.base = web_address(url)
        self.source = f"SearXNG at {self.base.origin}"
        self.limits = limits or FetchLimits(
            total_seconds=SEARCH_SECONDS, max_bytes=MAX_ANSWER_BYTES
        )

    def address(self, query: str) -> str:
        """The request's URL: the base's path with `/search` (unless it ends with it), the
        query and `format=json`."""
        path = self.base.target.split("?", 1)[0].rstrip("/")
        path = path if path.endswith("/search") else path + "/search"
        return f"{self.base.origin}{path}?{urlencode({'q': query, 'format': 'json'})}"

    async def search(self, query: str, limit: int, domains: tuple[str, ...]) -> SearchFindings:
        address = web_address(self.address(query))
        try:
            fetched = await download(address, self.limits)
        except ToolError as error:
            raise ToolError(f"{self.source} did not answer: {error}") from None
        if isinstance(fetched, Redirect):
            raise ToolError(
                f"{self.source} redirects to another site ({fetched.target}); set [web_search] "
                "url to the instance's own address"
            )
        if fetched.status != 200:
            raise ToolError(self._status_error(fetched.status, fetched.body))
        if fetched.cut:
            raise ToolError(f"{self.source} sent more than {MAX_ANSWER_BYTES:,} bytes: not read")
        return SearchFindings(self.source, tuple(self._hits(fetched.body)))

    def _status_error(self, status: int, body: bytes) -> str:
        if status == 403:  # SearXNG's answer when format=json is not in its search.formats
            return (
                f"{self.source} refused the search (HTTP 403): allow the JSON format in its "
                "settings.yml (search: formats: [html, json])"
            )
        if status == 429:  # its limiter (bot detection), on a public instance
            return f"{self.source} limits this client (HTTP 429): use an instance of your own"
        text = " ".join(body[:QUOTED_BODY_CHARS].decode("utf-8", "replace").split())
        return f"{self.source} answered HTTP {status}" + (f": {text!r}" if text else "")

    def _hits(self, body: bytes) -> list[SearchHit]:
        try:
            data: Any = json.loads(body)
        except (ValueError, RecursionError):
            raise ToolError(f"{self.source} did not answer in JSON (is the URL its own?)") from None
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise ToolError(f"{self.source} answered JSON without a results list")
        hits = []
        for item in results[:MAX_READ_RESULTS]:
            if not isinstance(item, dict) or not isinstance(item.get("url"), str):
                continue
            title, content = item.get("title"), item.get("content")
            hits.append(
                SearchHit(
                    title if isinstance(title, str) else "",
                    item["url"],
                    content if isinstance(content, str) else "",
                )
            )
        return hits
