"""A web page's HTML as markdown: its text, headings, lists, links, tables and code blocks.

beautifulsoup4 parses the page with Python's own HTML parser (no compiled parser to install)
and markdownify writes the markdown; both are imported when a page is converted. Before that,
what is not the page's content goes: scripts, styles, frames, forms' controls, navigation and
search boxes; when the page marks its main content (`<main>`, `role="main"`), only that is
kept. Links and images are made absolute, so the model can fetch what they point to; links
that run script or carry data inline lose their target and keep their text.

Conversion costs per element, not per byte: a page of tags and little text (hostile, or
generated) is converted only up to its MAX_TAGS-th tag, and says so. A page nested too deep for
the converter's recursion (thousands of open tags, which no real page has) is returned as its
plain text instead, with a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

if TYPE_CHECKING:
    from bs4 import BeautifulSoup, Tag

# Elements that are never content: code, styling, embedded documents and media players, form
# controls (a search box, a "copy" button), and navigation.
NOISE_TAGS = (
    "script", "style", "noscript", "template", "link", "meta", "svg", "canvas", "iframe",
    "frame", "frameset", "object", "embed", "applet", "button", "select", "input", "textarea",
    "nav",
)  # fmt: skip
# ARIA roles of navigation and search regions (`<div role="navigation">`, Sphinx's sidebars).
NOISE_ROLES = ("navigation", "search")
# URL schemes of links and images that point nowhere the model could fetch (script, inline data).
DEAD_SCHEMES = ("javascript", "data", "vbscript")
# Characters of a page's <title> kept: a title longer than this is not a title.
MAX_TITLE_CHARS = 300
# A code block's language, from the classes highlighters put on it or around it:
# `language-python` (Markdown renderers, Prism), `lang-js`, Sphinx's `highlight-python3`,
# GitHub's `highlight-source-rust`; names of no language (Sphinx's `default`) are ignored.
LANGUAGE_CLASS = re.compile(r"(?:language|lang|highlight(?:-source)?)-([A-Za-z0-9_+#.\-]{1,30})")
NOT_LANGUAGES = frozenset({"default", "none", "notranslate", "plaintext", "source"})
# A fenced code block's first or last line, as markdownify writes them.
FENCE = re.compile(r"```")
# Blank lines in a row kept in the markdown (more say nothing).
MAX_BLANK_LINES = 1
# Tags of a page converted at most: parsing and converting take 15 to 40 µs a tag on one busy
# core here, so this bounds a page to a few seconds; it is twice the tags of the Rust book's
# single-page print version (50,000 in 1.9 MB), so real pages are converted whole.
MAX_TAGS = 100_000
# What starts a tag (or a comment, a declaration) for that count.
TAG_START = re.compile(r"<[A-Za-z!/?]")


@dataclass(frozen=True)
class Markdown:
    """A converted page: its title (None without one), its markdown, and whether it had to be
    given as plain text (too deeply nested to convert)."""

    title: str | None
    text: str
    plain: bool = False
    # Characters of the HTML converted, when the page has more tags than converted (None: all).
    converted_chars: int | None = None


def html_to_markdown(html: str, base_url: str, max_tags: int = MAX_TAGS) -> Markdown:
    """The page's content as markdown, links absolute against `base_url` (or the page's own
    `<base href>`), up to its `max_tags`-th tag. CPU-bound (seconds for megabytes): call it in
    a worker thread."""
    from bs4 import BeautifulSoup

    converted_chars = _tags_end(html, max_tags)
    if converted_chars is not None:
        html = html[:converted_chars]
    soup = BeautifulSoup(html, "html.parser")
    title = _title(soup)
    base = _base_url(soup, base_url)
    for tag in soup.find_all(NOISE_TAGS):
        tag.decompose()
    for tag in soup.select(", ".join(f'[role="{role}"]' for role in NOISE_ROLES)):
        tag.decompose()
    content = _main_content(soup)
    _absolute_links(content, base)
    try:
        text = _convert(content)
    except RecursionError:
        return Markdown(title, _tidy(content.get_text("\n")), True, converted_chars)
    return Markdown(title, _tidy(text), False, converted_chars)


def _tags_end(html: str, max_tags: int) -> int | None:
    """Where the tag after the `max_tags`-th starts, or None when the page has no more."""
    for count, found in enumerate(TAG_START.finditer(html), 1):
        if count > max_tags:
            return found.start()
    return None


def _convert(content: Tag | BeautifulSoup) -> str:
    """markdownify's conversion with the options for a model to read: ATX headings (`#`), `-`
    bullets, fenced code blocks with their language, and no backslashes before `_` and `*`
    (identifiers like `__init__` stay readable). Raises RecursionError on a too deep page."""
    from markdownify import MarkdownConverter

    converter = MarkdownConverter(
        heading_style="ATX",
        bullets="-",
        code_language_callback=_code_language,
        escape_asterisks=False,
        escape_underscores=False,
    )
    return str(converter.convert_soup(content))


def _title(soup: BeautifulSoup) -> str | None:
    tag = soup.find("title")
    if tag is None:
        return None
    title = " ".join(tag.get_text().split())[:MAX_TITLE_CHARS]
    return title or None


def _base_url(soup: BeautifulSoup, page_url: str) -> str:
    """The page's `<base href>` when it is an http(s) URL, else the page's own address."""
    from bs4 import Tag

    base = soup.find("base", href=True)
    if isinstance(base, Tag):
        href = urljoin(page_url, str(base.get("href", "")).strip())
        if urlsplit(href).scheme in ("http", "https"):
            return href
    return page_url


def _main_content(soup: BeautifulSoup) -> Tag | BeautifulSoup:
    """The element the page marks as its main content, when it has text; else the whole page."""
    from bs4 import Tag

    main = soup.find("main") or soup.select_one('[role="main"]')
    if isinstance(main, Tag) and main.get_text().strip():
        return main
    return soup


def _absolute_links(content: Tag | BeautifulSoup, base: str) -> None:
    """Every link and image made absolute; a link to script or inline data keeps its text
    only, an inline-data image becomes its alt text."""
    for link in content.find_all("a", href=True):
        href = str(link.get("href", "")).strip()
        if _dead(href):
            del link["href"]
        elif not href.startswith("#"):
            link["href"] = urljoin(base, href)
    for image in content.find_all("img"):
        src = str(image.get("src", "")).strip()
        if not src or _dead(src):
            image.replace_with(str(image.get("alt", "")))
        else:
            image["src"] = urljoin(base, src)


def _dead(url: str) -> bool:
    scheme = url.split(":", 1)[0].strip().lower() if ":" in url else ""
    return scheme in DEAD_SCHEMES


def _code_language(pre: Tag) -> str | None:
    """The language of a `<pre>` block, from its classes, its `<code>`'s, or those of the two
    elements around it (Sphinx wraps `<pre>` in `div.highlight` in `div.highlight-python`)."""
    from bs4 import Tag

    code = pre.find("code")
    parent = pre.parent
    places = [pre, code, parent, parent.parent if parent is not None else None]
    for place in places:
        if not isinstance(place, Tag):
            continue
        for name in place.get_attribute_list("class"):
            found = LANGUAGE_CLASS.fullmatch(str(name))
            if found and found.group(1).lower() not in NOT_LANGUAGES:
                return found.group(1)
    return None


def _tidy(text: str) -> str:
    """Trailing spaces off every line and runs of blank lines down to one, outside code blocks
    (kept as they are); no blank lines at the ends. Lines are split at newlines only: other
    control characters stay in the text as they came."""
    kept: list[str] = []
    blanks = 0
    in_code = False
    for line in text.split("\n"):
        if FENCE.match(line):
            in_code = not in_code
        elif in_code:
            kept.append(line)
            continue
        line = line.rstrip(" \t\r")
        blanks = blanks + 1 if not line else 0
        if blanks <= MAX_BLANK_LINES:
            kept.append(line)
    return "\n".join(kept).strip("\n")
