"""Searching and showing archived chunks for the chunk browser (no UI here)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from sessions.archive import ChunkInfo

# Characters of a chunk rendered at once (a page): Markdown takes about 10 ms per 1,000
# characters to lay out (measured), so a page shows within half a second while a fold of a
# long session, megabytes, is read page by page.
PAGE_CHARS = 40_000
# How a message starts in a chunk: a page ends before one (found in the page's second half),
# so a message is rarely split between pages.
MESSAGE_HEADING = "\n### "
# A query with one of these is read as a regex (when it compiles); plain words are all
# required, in any order, as a person typing in a search box expects.
REGEX_CHARS = frozenset("\\^$.|?*+()[]{}")

Matcher = Callable[[str], int]


def matcher(query: str) -> Matcher:
    """Hits of the query in a text: a regex's matches, or (words) the number of word hits when
    every word appears and 0 otherwise; case ignored either way."""
    query = query.strip()
    if REGEX_CHARS & set(query):
        try:
            pattern = re.compile(query, re.IGNORECASE)
        except re.error:
            pass
        else:
            return lambda text: sum(1 for _ in pattern.finditer(text))
    words = [re.compile(re.escape(w), re.IGNORECASE) for w in dict.fromkeys(query.split())]

    def count(text: str) -> int:
        hits = [len(w.findall(text)) for w in words]
        return sum(hits) if hits and all(hits) else 0

    return count


def read_chunk(info: ChunkInfo) -> str:
    """The chunk file's text (blocking: call it in a thread)."""
    return Path(info.path).read_text(encoding="utf-8", errors="replace")


def body(text: str) -> str:
    """The chunk's Markdown without its front matter."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[end + 5 :]
    return text


def pages(text: str, size: int = PAGE_CHARS) -> list[str]:
    """The text in pages of at most `size` characters, cut before a message heading where
    there is one in the page's second half (otherwise at the limit)."""
    found: list[str] = []
    start = 0
    while len(text) - start > size:
        cut = text.rfind(MESSAGE_HEADING, start + size // 2, start + size)
        end = cut + 1 if cut != -1 else start + size
        found.append(text[start:end])
        start = end
    found.append(text[start:])
    return found


def chunk_label(info: ChunkInfo, hits: int | None = None) -> str:
    """One line of the chunk list."""
    ids = f"{info.first_id}–{info.last_id}" if info.first_id else "stubs only"
    found = f" · {hits} hits" if hits else ""
    return f"chunk {info.number} · {ids} · {info.message_count} msgs{found}\n{info.topics or '-'}"
