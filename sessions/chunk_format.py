"""The chunk file format: one front-matter codec, and whole chunks written and read back."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessions.chunk_blocks import (
    HEADER_PREFIX,
    ChunkFormatError,
    Cursor,
    parse_message,
    render_message,
)
from sessions.messages import Message

# Opens and closes the front matter, as in Jekyll and most static-site tools, so a markdown
# viewer shows the file's metadata as a block instead of as text.
FRONT_MATTER_FENCE = "---"
# Lines read while looking for the end of the front matter: it has about a dozen lines, so
# more means the file is not a chunk.
MAX_FRONT_MATTER_LINES = 64
# Bytes of one front-matter line: topics are a short line, so a longer one means a file that is
# not a chunk, and reading stops before it can cost much memory.
MAX_FRONT_MATTER_LINE_BYTES = 1024 * 1024
# Characters of a damaged line quoted in an error: enough to recognise it, never a flood.
MAX_QUOTED_CHARS = 60
# A byte-order mark some editors add when they save a file: tolerated before the opening fence.
BOM = "\ufeff"
# Front-matter keys every chunk has; a file missing one is treated as broken. (shrunk_count
# came later: a chunk without it has no shrunk originals.)
REQUIRED_KEYS = (
    "session",
    "chunk",
    "topics",
    "first_id",
    "last_id",
    "message_count",
    "tokens",
    "created",
    "merged",
)
# The sections of a chunk: the folded messages, then the full originals of tool outputs the
# live conversation keeps only as stubs (read back separately, see parse_chunk).
FOLDED_HEADING = "## Folded messages"
SHRUNK_HEADING = "## Tool outputs shrunk in the kept tail"
# Unicode text is stored as UTF-8; lone surrogates (possible in decoded JSON) survive too.
ENCODING = "utf-8"
ENCODING_ERRORS = "surrogatepass"


@dataclass(frozen=True)
class ChunkInfo:
    """What a chunk's front matter says about it."""

    number: int
    path: Path
    topics: str
    first_id: str
    last_id: str
    message_count: int  # folded messages (the shrunk originals are counted in shrunk_count)
    tokens: int
    created: str  # ISO time the chunk was first written
    merged: tuple[str, ...]  # ISO times of each later fold merged into this chunk
    session: str
    shrunk_count: int = 0

    def state(self) -> dict[str, Any]:
        """What the journal records of the newest chunk after a compaction (see reconcile)."""
        return {
            "number": self.number,
            "messages": self.message_count,
            "shrunk": self.shrunk_count,
            "tokens": self.tokens,
            "topics": self.topics,
            "merges": len(self.merged),
        }

    @property
    def merges(self) -> int:
        return len(self.merged)

    def front_fields(self) -> dict[str, Any]:
        """The front matter's fields, in the order they are written."""
        return {
            "session": self.session,
            "chunk": self.number,
            "topics": self.topics,
            "first_id": self.first_id,
            "last_id": self.last_id,
            "message_count": self.message_count,
            "shrunk_count": self.shrunk_count,
            "tokens": self.tokens,
            "created": self.created,
            "merged": list(self.merged),
        }


# -- the front-matter codec -----------------------------------------------------------------


def encode_front_matter(fields: Mapping[str, Any]) -> str:
    """A fence line, one `key: <JSON value>` line per field, a fence line; each ends in \\n."""
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in fields.items()]
    return "\n".join([FRONT_MATTER_FENCE, *lines, FRONT_MATTER_FENCE]) + "\n"


def _quoted(line: str) -> str:
    return repr(line if len(line) <= MAX_QUOTED_CHARS else line[:MAX_QUOTED_CHARS] + "…")


def decode_front_matter(lines: Iterable[str]) -> tuple[dict[str, Any], int]:
    """(fields, lines taken up to and including the closing fence). Tolerates a byte-order
    mark, CR line ends and blank lines; anything else damaged is a ChunkFormatError saying what
    and on which line. Unknown keys are kept, so a newer pleat's chunks still read."""
    fields: dict[str, Any] = {}
    number = 0
    for number, raw in enumerate(lines, 1):
        line = raw.removesuffix("\r")
        if number == 1:
            if line.removeprefix(BOM) != FRONT_MATTER_FENCE:
                raise ChunkFormatError(f"no front matter: the first line is {_quoted(line)}")
            continue
        if line == FRONT_MATTER_FENCE:
            return fields, number
        if number >= MAX_FRONT_MATTER_LINES:
            raise ChunkFormatError(f"front matter not closed within {MAX_FRONT_MATTER_LINES} lines")
        if not line.strip():
            continue
        key, sep, value = line.partition(": ")
        if not sep or not key:
            raise ChunkFormatError(
                f"front-matter line {number} is not `key: value`: {_quoted(line)}"
            )
        try:
            fields[key] = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            raise ChunkFormatError(
                f"front-matter line {number}: the value of {key} is not JSON: {_quoted(value)}"
            ) from None
    if number == 0:
        raise ChunkFormatError("no front matter: the file is empty")
    raise ChunkFormatError(f"front matter not closed: no second {FRONT_MATTER_FENCE} line")


def _text_lines(text: str, ends: list[int]) -> Iterator[str]:
    """The lines of `text` ("\\n" only), recording where each one ends (past its newline)."""
    pos = 0
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        ends.append(min(end + 1, len(text)))
        yield text[pos:end]
        pos = end + 1


def split_front_matter(text: str) -> tuple[dict[str, Any], int]:
    """(the front matter's fields, the offset where the markdown after it starts)."""
    ends: list[int] = []
    fields, taken = decode_front_matter(_text_lines(text, ends))
    return fields, ends[taken - 1]


def _file_lines(path: Path) -> Iterator[str]:
    """A file's lines, each read with a bounded buffer; a cut line is an error."""
    with path.open("rb") as handle:
        while raw := handle.readline(MAX_FRONT_MATTER_LINE_BYTES):
            if not raw.endswith(b"\n"):
                raise ChunkFormatError("front-matter line too long or file cut short")
            yield raw.decode(ENCODING, ENCODING_ERRORS).removesuffix("\n")


def info_from_fields(fields: Mapping[str, Any], number: int, path: Path) -> ChunkInfo:
    """The ChunkInfo the decoded front matter describes; missing or mistyped keys are errors."""
    missing = [key for key in REQUIRED_KEYS if key not in fields]
    if missing:
        raise ChunkFormatError(f"front matter lacks {', '.join(missing)}")
    strings = ("session", "topics", "first_id", "last_id", "created")
    integers = ("message_count", "tokens")
    merged = fields["merged"]
    shrunk_count = fields.get("shrunk_count", 0)
    wrong = [key for key in strings if not isinstance(fields[key], str)]
    wrong += [key for key in integers if type(fields[key]) is not int]
    wrong += [] if type(shrunk_count) is int else ["shrunk_count"]
    if not isinstance(merged, list) or not all(isinstance(t, str) for t in merged):
        wrong.append("merged")
    if wrong:
        raise ChunkFormatError(f"front-matter value of the wrong type: {', '.join(wrong)}")
    return ChunkInfo(
        number=number,
        path=path,
        topics=fields["topics"],
        first_id=fields["first_id"],
        last_id=fields["last_id"],
        message_count=fields["message_count"],
        tokens=fields["tokens"],
        created=fields["created"],
        merged=tuple(merged),
        session=fields["session"],
        shrunk_count=shrunk_count,
    )


def read_front_matter(path: Path, number: int) -> ChunkInfo:
    """A chunk file's ChunkInfo, reading only its first lines."""
    try:
        fields, _ = decode_front_matter(_file_lines(path))
    except UnicodeDecodeError:
        raise ChunkFormatError("the front matter is not UTF-8 text") from None
    return info_from_fields(fields, number, path)


# -- whole chunks ---------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render_chunk(info: ChunkInfo, folded: Sequence[Message], shrunk: Sequence[Message]) -> str:
    """The chunk file's text: front matter, a short readable preface, the message blocks."""
    lines = ["", f"# Archived conversation, chunk {info.number}", ""]
    if info.topics:
        lines += [f"Topics: {_one_line(info.topics)}", ""]
    lines += [
        f"Messages {_one_line(info.first_id)} to {_one_line(info.last_id)}, word for word "
        f"({info.message_count} messages, about {info.tokens} tokens).",
        "",
        FOLDED_HEADING,
        "",
    ]
    parts = [encode_front_matter(info.front_fields()), "\n".join(lines) + "\n"]
    parts += [render_message(m) + "\n" for m in folded]
    if shrunk:
        parts.append(
            f"{SHRUNK_HEADING}\n\nThese messages are still in the live conversation, shortened "
            "to a stub; their full original text is below.\n\n"
        )
        parts += [render_message(m) + "\n" for m in shrunk]
    return "".join(parts)


def parse_chunk(text: str) -> tuple[dict[str, Any], list[Message], list[Message]]:
    """(front matter, folded messages, shrunk originals). Parsed by structure and fences, so
    nothing inside a message's content is ever mistaken for a header."""
    fields, start = split_front_matter(text)
    cursor = Cursor(text, start)
    folded: list[Message] = []
    shrunk: list[Message] = []
    target = folded
    while not cursor.at_end():
        line = cursor.peek()
        if line.startswith(HEADER_PREFIX):
            target.append(parse_message(cursor))
            continue
        if line == SHRUNK_HEADING:
            target = shrunk
        cursor.advance()  # title, topics line, headings, blank lines
    return fields, folded, shrunk


def read_text(path: Path) -> str:
    """A chunk file's whole text. Raises OSError, or ChunkFormatError when it is not UTF-8."""
    try:
        return path.read_bytes().decode(ENCODING, ENCODING_ERRORS)
    except UnicodeDecodeError as error:
        raise ChunkFormatError(f"{path.name} is not UTF-8 text: {error}") from None
