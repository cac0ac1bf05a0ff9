"""Searching and showing archived chunks for the chunk browser (no UI here)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.terminal_text import visible
from sessions.archive import ChunkArchive, ChunkInfo
from sessions.archive_index import IndexUnavailable, use_index
from sessions.archive_query import (
    PAGE_CHARS,
    Entry,
    Hit,
    Query,
    SearchResult,
    chunk_entries,
    search,
    split_pages,
)
from sessions.chunk_blocks import HEADER_PREFIX, ChunkFormatError, heading
from sessions.chunk_format import SHRUNK_HEADING, split_front_matter
from sessions.index_search import indexed, search_chunks

# How a message starts in a chunk: a page ends before one (found in the page's second half),
# so a message is rarely split between pages.
MESSAGE_HEADING = "\n" + HEADER_PREFIX


@dataclass(frozen=True)
class ChunkHits:
    """What a search found in one chunk."""

    count: int  # matches in all its matching messages
    first: Hit  # the first matching message, where the chunk opens


class ChunkSearcher:
    """Runs queries over a session's chunks with sessions.archive_query, the rules read_archive
    follows too. The parsed messages of each chunk are kept while its file is unchanged, since
    the browser searches again at every keystroke."""

    def __init__(self, archive: ChunkArchive) -> None:
        self.archive = archive
        self._entries: dict[int, tuple[tuple[int, int], list[Entry]]] = {}
        # Why the last search stopped before its end (the pattern ran out of time), or None.
        self.stopped_early: str | None = None
        # A line to show once: the archive index was rebuilt (or could not be used), or None.
        self.notice: str | None = None

    def entries(self, number: int) -> list[Entry]:
        """A chunk's messages (blocking). Raises OSError or ChunkFormatError."""
        stat = self.archive.path(number).stat()
        key = (stat.st_mtime_ns, stat.st_size)
        cached = self._entries.get(number)
        if cached is None or cached[0] != key:
            cached = (key, chunk_entries(self.archive, number))
            self._entries[number] = cached
        return cached[1]

    def search(
        self, query: Query, numbers: Sequence[int], stopped: Callable[[], bool]
    ) -> dict[int, ChunkHits]:
        """The chunks that match, by number (blocking: call it in a thread). Unreadable chunks
        are left out, as the list leaves them out. Raises SearchCancelled once stopped()."""
        found: dict[int, ChunkHits] = {}
        result = self._search(query, numbers, stopped)
        self.stopped_early = result.stopped_early
        for hit in result.hits:
            number = hit.entry.chunk
            if number in found:
                found[number] = ChunkHits(found[number].count + hit.count, found[number].first)
            else:
                found[number] = ChunkHits(hit.count, hit)
        return found

    def _search(
        self, query: Query, numbers: Sequence[int], stopped: Callable[[], bool]
    ) -> SearchResult:
        """Through the archive index (its rebuilt notice kept in `notice`); through the chunk
        files for an archive the index does not cover, or when it cannot be used."""
        if indexed(self.archive):
            session = self.archive.session_id
            try:
                result, self.notice = use_index(
                    lambda conn: search_chunks(conn, query, session, numbers, stopped), stopped
                )
                return result
            except IndexUnavailable as error:
                self.notice = f"{error}; the chunk files were read instead"
        return search(query, numbers, self.entries, stopped)


def read_chunk(info: ChunkInfo) -> str:
    """The chunk file's text (blocking: call it in a thread)."""
    return Path(info.path).read_text(encoding="utf-8", errors="replace")


def body(text: str) -> str:
    """The chunk's Markdown without its front matter (all of it if the front matter is broken)."""
    try:
        _, start = split_front_matter(text)
    except ChunkFormatError:
        return text
    return text[start:]


def pages(text: str, size: int = PAGE_CHARS) -> list[str]:
    """The text in pages of at most `size` characters, cut before a message heading where
    there is one in the page's second half (otherwise at the limit)."""
    return split_pages(text, size, MESSAGE_HEADING, size // 2)


def hit_page(shown: Sequence[str], hit: Hit) -> int:
    """The page of a chunk's Markdown showing the hit's first match (content is written word for
    word) or, failing that, the heading of its message."""
    text = "".join(shown)
    section = text.find("\n" + SHRUNK_HEADING) if hit.entry.original else 0
    at = text.find("\n" + heading(hit.entry.message.id), max(section, 0))
    if at == -1:
        return 0
    found = text.find(hit.first_match, at)
    position = found if found != -1 else at
    end = 0
    for index, page in enumerate(shown):
        end += len(page)
        if position < end:
            return index
    return len(shown) - 1


def chunk_label(info: ChunkInfo, hits: int | None = None) -> str:
    """One line of the chunk list."""
    ids = f"{info.first_id}–{info.last_id}" if info.first_id else "stubs only"
    found = f" · {hits} hits" if hits else ""
    topics = visible(info.topics or "-")
    return f"chunk {info.number} · {ids} · {info.message_count} msgs{found}\n{topics}"
