"""Finding things in the archive for read_archive: chunks, messages by id, clear errors."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sessions.archive_query import (
    MAX_COUNTED_MATCHES,
    Entry,
    Hit,
    chunk_entries,
    unreadable_reason,
)
from sessions.messages import Message
from tools.base import ToolError

if TYPE_CHECKING:
    from sessions.archive import ChunkArchive, ChunkInfo

# The answer (or error tail) while no compaction has written a chunk yet.
EMPTY_ARCHIVE = "the archive is empty: nothing has been folded yet"
# An id given as a bare number ("45"): message ids are "m" + a number, so it means "m45".
BARE_NUMBER = re.compile(r"\d+\Z")


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def ranges(numbers: Sequence[int]) -> str:
    """Sorted numbers as ranges: [1, 2, 3, 5] -> "1-3, 5"."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def normalise_id(raw: str) -> str:
    """A message id as written by the model: "m45", or a bare "45" meaning the same."""
    text = raw.strip()
    if not text:
        raise ToolError("a message id cannot be empty; ids look like m45")
    return f"m{text}" if BARE_NUMBER.match(text) else text


def chunk_numbers_line(infos: Sequence[ChunkInfo]) -> str:
    if not infos:
        return EMPTY_ARCHIVE
    return f"the archive has chunks {ranges([i.number for i in infos])}"


def info_for(archive: ChunkArchive, number: int) -> ChunkInfo:
    """The chunk's index entry, or a clear error naming the chunks that exist."""
    infos = archive.chunks()
    for info in infos:
        if info.number == number:
            return info
    if archive.path(number).exists():
        raise ToolError(
            f"chunk {number} is damaged and cannot be read; {chunk_numbers_line(infos)}"
        )
    raise ToolError(f"chunk {number} does not exist; {chunk_numbers_line(infos)}")


def read_entries(archive: ChunkArchive, number: int) -> list[Entry]:
    """Every message of a chunk in archive order, or a clear error."""
    try:
        return chunk_entries(archive, number)
    except (OSError, ValueError) as exc:
        raise ToolError(f"chunk {number} cannot be read: {unreadable_reason(exc)}") from exc


def who(message: Message) -> str:
    """The role, with the tool's name on tool results: "assistant", "tool read_file"."""
    return f"{message.role} {message.name}" if message.name else message.role


def hit_line(hit: Hit, where: Sequence[str]) -> str:
    """One search hit: `where` (`chunk 1`, or a session and day), the message, who wrote it,
    its label, the snippet, and how many matches the message holds
    (`chunk 1 · m3 · tool run_command: …snippet… (4 matches in this message)`)."""
    entry = hit.entry
    parts = [*where, entry.message.id, who(entry.message)]
    if entry.original:
        parts.append("shrunk original")
    if hit.label:
        parts.append(hit.label)
    line = " · ".join(parts) + ": " + hit.snippet()
    if hit.count > 1:
        many = f"{hit.count}+" if hit.count >= MAX_COUNTED_MATCHES else str(hit.count)
        line += f" ({many} matches in this message)"
    return line
