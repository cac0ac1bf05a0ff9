"""The [web_search] table of config.toml: which search web_search uses, and its bounds.

```toml
[web_search]
backend = "auto"                # auto | provider | searxng | off
url = "http://127.0.0.1:8888"   # a SearXNG instance (with format json allowed)
max_results = 5
per_session_cap = 30
```

`auto` uses the model provider's own search when the model has one (Anthropic, OpenAI, Gemini
through litellm), else SearXNG when `url` is set, else offers no web_search at all;
`provider` and `searxng` use that one only; `off` never offers the tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

from tools.errors import ToolError
from tools.web_address import web_address
from tools.web_search import DEFAULT_SESSION_CAP
from tools.web_search_results import MAX_RESULTS

Backend = Literal["auto", "provider", "searxng", "off"]
BACKENDS: tuple[Backend, ...] = ("auto", "provider", "searxng", "off")
# The most per_session_cap may be: past a thousand, a cap no longer stops a loop of searches.
MAX_SESSION_CAP = 1000


@dataclass(frozen=True)
class WebSearchSettings:
    """The table's values (the defaults when config.toml has none)."""

    backend: Backend = "auto"
    url: str = ""  # SearXNG's base URL, in web_fetch's normal form ("" when not set)
    max_results: int = MAX_RESULTS
    per_session_cap: int = DEFAULT_SESSION_CAP


def parse_web_search(value: Any, label: str) -> WebSearchSettings:
    """The table from its TOML value; ValueError with one line naming the key (`label`: how
    the table is named in the message) for anything else."""
    if not isinstance(value, dict):
        raise ValueError(f"{label} must be a table ([web_search])")
    known = {"backend", "url", "max_results", "per_session_cap"}
    for key in value:
        if key not in known:
            raise ValueError(f"unknown setting {label}.{key} (known: {', '.join(sorted(known))})")
    backend = value.get("backend", "auto")
    if backend not in BACKENDS:
        raise ValueError(f"{label}.backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    url = value.get("url", "")
    if not isinstance(url, str):
        raise ValueError(f"{label}.url must be a string")
    if url.strip():
        try:
            url = web_address(url).url
        except ToolError as error:
            raise ValueError(f"{label}.url: {error}") from None
    if backend == "searxng" and not url:
        raise ValueError(f'{label}.backend is "searxng" but {label}.url is not set')
    counts = {}
    for key, default, most in (
        ("max_results", MAX_RESULTS, MAX_RESULTS),
        ("per_session_cap", DEFAULT_SESSION_CAP, MAX_SESSION_CAP),
    ):
        number = value.get(key, default)
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= most:
            raise ValueError(f"{label}.{key} must be a whole number from 1 to {most}")
        counts[key] = number
    return WebSearchSettings(cast(Backend, backend), url, **counts)
