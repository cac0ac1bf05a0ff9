"""The web_fetch tool: an http(s) page as markdown (text and JSON as they are), bounded like all.

The URL is read into its normal form (tools/web_address.py), which the permission rules have
already judged; the page is downloaded within a time and a size limit (tools/web_download.py),
decoded (tools/web_text.py) and, for HTML, converted to markdown in a worker thread
(tools/html_markdown.py). The result starts with a line saying what was fetched; like every
tool's, it is then cut to the model's budget by the registry, the whole kept for read_archive.

Claude Code's WebFetch also takes a `prompt` and answers it with a small model; pleat has no
second model call in a tool, so `prompt` is accepted (a model used to it may send one) and the
page itself comes back for the model to read.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.html_markdown import html_to_markdown
from tools.web_address import MAX_URL_CHARS, WebAddress, web_address
from tools.web_download import (
    MAX_PAGE_BYTES,
    TOTAL_SECONDS,
    FetchLimits,
    Page,
    Redirect,
    download,
)
from tools.web_image import image_output
from tools.web_text import decode_body, media_type

WEB_FETCH_TOOL_NAME = "web_fetch"
# Characters of the page shown for an HTTP error status (404, 500 ...): enough for the
# server's explanation; an error page's navigation and boilerplate are not worth the tokens.
ERROR_PAGE_CHARS = 2_000
# Characters of a `prompt` accepted (it is not used; a question is a few lines at most).
MAX_PROMPT_CHARS = 10_000
# Characters of a URL shown in a call's one-line title.
TITLE_URL_CHARS = 200

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {
            "type": "string",
            "maxLength": MAX_URL_CHARS,
            "description": "An http:// or https:// URL (a local server's too).",
        },
        "prompt": {
            "type": "string",
            "maxLength": MAX_PROMPT_CHARS,
            "description": "Optional; unused: the page itself comes back for you to read.",
        },
    },
    "required": ["url"],
    "additionalProperties": False,
}


class WebFetchTool(Tool):
    """Fetch a web page; it asks like a command (it reaches out of the machine) unless a rule
    allows its URL, and in plan mode it asks instead of being refused (it changes nothing)."""

    name = WEB_FETCH_TOOL_NAME
    description = (
        "Fetch an http(s) URL. A web page comes back as markdown (headings, lists, links, "
        "code blocks), text and JSON as they are, a PNG, JPEG, GIF or WebP image as an image; "
        f"other files are refused. Up to {MAX_PAGE_BYTES // 2**20} MiB in {TOTAL_SECONDS:g} s; "
        "a redirect to another site is reported, not followed."
    )
    parameters = _PARAMETERS
    read_only = False
    asks_in_plan_mode = True
    main_argument = "url"
    main_argument_kind = "url"

    def __init__(self, limits: FetchLimits | None = None) -> None:
        self.limits = limits or FetchLimits()

    def describe_call(self, args: dict[str, Any]) -> str:
        url = str(args.get("url", ""))
        shown = url if len(url) <= TITLE_URL_CHARS else url[:TITLE_URL_CHARS] + "…"
        return f"{self.name}({shown!r})"

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """The request that will be made: `GET` and the URL in the form the rules judged."""
        try:
            return f"GET {web_address(str(args.get('url', '')))}"
        except ToolError as error:  # the run will say the same
            return f"{self.describe_call(args)}\n(this call will fail: {error})"

    def writes(self, args: dict[str, Any]) -> tuple[str, ...]:
        """No file changes: no checkpoint snapshot is taken for a fetch."""
        return ()

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        address = web_address(args["url"])
        judge = ctx.same_permission

        def follows(target: WebAddress) -> bool:
            return judge is None or judge({**args, "url": target.url})

        fetched = await download(address, self.limits, follows)
        if isinstance(fetched, Redirect):
            return _redirect_output(fetched)
        return await asyncio.to_thread(page_output, fetched, self.limits, ctx)


def _redirect_output(redirect: Redirect) -> ToolOutput:
    if redirect.elsewhere:
        text = (
            f"{redirect.address} redirects (HTTP {redirect.status}) to another site: "
            f"{redirect.target}\nweb_fetch does not follow a redirect to another site by "
            f'itself; to read it, call web_fetch with url "{redirect.target}".'
        )
    else:
        text = (
            f"{redirect.address} redirects (HTTP {redirect.status}) to {redirect.target}, "
            "which the permission rules do not allow as they allowed this fetch, so web_fetch "
            f'did not follow it; to read it, call web_fetch with url "{redirect.target}" '
            "(that call is judged on its own)."
        )
    meta = {"url": redirect.address.url, "status": redirect.status, "location": redirect.target.url}
    return ToolOutput(text, meta=meta)


def page_output(page: Page, limits: FetchLimits, ctx: ToolContext) -> ToolOutput:
    """What the model reads of a page: a line saying what it is, notes, then its content; an
    image attached. CPU-bound for a big HTML page, blocking for an image: run it in a worker
    thread."""
    media = media_type(page.content_type) or "no content type"
    meta: dict[str, Any] = {"url": page.address.url, "status": page.status, "content_type": media}
    status = f"HTTP {page.status}" + (f" {page.reason}" if page.reason else "")
    if page.kind == "binary":
        size = f", {page.length:,} bytes" if page.length is not None else ""
        text = (
            f"{page.address} is {media}{size} ({status}): not a web page or text, so "
            "web_fetch did not read it"
        )
        return ToolOutput(text, is_error=True, meta=meta)
    if page.kind == "image":
        return image_output(page, ctx, meta)
    decoded = decode_body(page.body, page.content_type, page.kind)
    lines = [_first_line(page, media, status)]
    content = decoded.text
    if page.kind == "html":
        converted = html_to_markdown(decoded.text, page.address.url, limits.max_tags)
        content = converted.text
        if converted.title:
            lines.append(f"Title: {converted.title}")
        if converted.converted_chars is not None:
            lines.append(
                f"[the page has more than {limits.max_tags:,} tags: only its first "
                f"{converted.converted_chars:,} characters were converted, so its end is missing]"
            )
        if converted.plain:
            lines.append("[the page nests too deep to convert to markdown: its plain text follows]")
        elif not content.strip() and decoded.text.strip():
            lines.append(
                "[the page has no text of its own: it is probably built by scripts in a "
                "browser, which web_fetch does not run]"
            )
    if page.cut:
        limit = _size(limits.max_bytes)
        lines.append(
            f"[the page is larger than {limit} (web_fetch's size limit): only its first "
            f"{limit} were read, so its end is missing]"
        )
    if decoded.note is not None:
        lines.append(f"[{decoded.note}]")
    error = page.status >= 400
    if error and len(content) > ERROR_PAGE_CHARS:
        content = content[:ERROR_PAGE_CHARS] + f"\n[… the rest of the {status} page is not shown]"
    if not content.strip():
        content = "(the page is empty)"
    meta["bytes"] = len(page.body)
    return ToolOutput("\n".join(lines) + "\n\n" + content, is_error=error, meta=meta)


def _first_line(page: Page, media: str, status: str) -> str:
    """`Fetched URL (redirected from URL) (HTTP 200 OK, text/html, 1,234 bytes), as markdown:`"""
    where = str(page.address)
    if page.address != page.asked:
        where += f" (redirected from {page.asked})"
    how = "as markdown" if page.kind == "html" else "as text"
    return f"Fetched {where} ({status}, {media}, {len(page.body):,} bytes), {how}:"


def _size(count: int) -> str:
    """`5 MiB`, `64 KiB` or `900 bytes`."""
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= size:
            return f"{count / size:,.4g} {unit}"
    return f"{count:,} bytes"
