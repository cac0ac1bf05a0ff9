"""The chunk archive of one session: folded messages kept verbatim as markdown files on disk."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessions.atomic import atomic_write, fsync_dir
from sessions.messages import Message, ToolCall
from sessions.redact import KnownSecrets

# Chunk files are `chunk-0001.md`, ...: four digits keep a directory listing in order for any
# realistic session; larger numbers simply get more digits.
CHUNK_NAME_FORMAT = "chunk-{:04d}.md"
CHUNK_NAME = re.compile(r"chunk-(\d+)\.md\Z")
# Only the session owner may list the archive (its files get sessions.atomic.FILE_MODE).
DIR_MODE = 0o700
# The shortest code fence CommonMark accepts; content with backtick runs gets a longer one.
MIN_FENCE = 3
# Lines read while looking for the end of the front matter: it has about a dozen lines, so
# more means the file is not a chunk.
MAX_FRONT_MATTER_LINES = 64
# Bytes of one front-matter line: topics are a short line, so a longer one means a file that is
# not a chunk, and reading stops before it can cost much memory.
MAX_FRONT_MATTER_LINE_BYTES = 1024 * 1024
# Front-matter keys every chunk has; a file missing one is treated as broken.
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
FOLDED_HEADING = "## Folded messages"
SHRUNK_HEADING = "## Tool outputs shrunk in the kept tail"
# Written instead of a fence when the content is None (an assistant turn with only tool calls),
# so None and "" stay distinct.
NO_CONTENT_LINE = "_(no text content)_"
CALL_PREFIX = "- call "
META_PREFIX = "- meta: "
# An assistant reply's reasoning as the provider gave it (blocks with signatures, or plain
# reasoning content), one JSON line, so a message read back is the message that was folded.
THINKING_PREFIX = "- thinking: "
HEADER_PREFIX = "### "
HEADER_SEPARATOR = " · "
CALL_SEPARATOR = ": "
# Header fields written bare when they look like ordinary ids and names (no spaces, quotes or
# separators); anything else is JSON-encoded so the header still parses unambiguously.
BARE_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/+=@#-]*\Z")
NONE_TOKEN = "-"
FENCE_LINE = re.compile(r"(`{3,})([^`]*)\Z")
BACKTICK_RUN = re.compile(r"`+")
# Unicode text is stored as UTF-8; lone surrogates (possible in decoded JSON) survive too.
ENCODING = "utf-8"
ENCODING_ERRORS = "surrogatepass"


class ChunkFormatError(ValueError):
    """A chunk file that does not follow the archive format."""


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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- writing --------------------------------------------------------------------------------


def _fence_for(text: str) -> str:
    longest = max((len(run) for run in BACKTICK_RUN.findall(text)), default=0)
    return "`" * max(MIN_FENCE, longest + 1)


def _fenced(text: str, info: str = "") -> str:
    fence = _fence_for(text)
    return f"{fence}{info}\n{text}\n{fence}\n"


def _token(value: str | None) -> str:
    if value is None:
        return NONE_TOKEN
    if BARE_TOKEN.match(value):
        return value
    return json.dumps(value, ensure_ascii=False)


def _header(message: Message) -> str:
    fields = [_token(message.id), _token(message.role)]
    if message.role == "tool" or message.name is not None or message.tool_call_id is not None:
        fields += [_token(message.name), _token(message.tool_call_id)]
    return HEADER_PREFIX + HEADER_SEPARATOR.join(fields)


def _render_message(message: Message) -> str:
    parts = [_header(message) + "\n"]
    if message.meta:
        meta = json.dumps(message.meta, ensure_ascii=False, default=str)
        parts.append(f"\n{META_PREFIX}{meta}\n")
    if message.thinking_blocks or message.reasoning_content is not None:
        thinking = {"blocks": list(message.thinking_blocks), "text": message.reasoning_content}
        parts.append(f"\n{THINKING_PREFIX}{json.dumps(thinking, ensure_ascii=False)}\n")
    for call in message.tool_calls:
        line = f"{CALL_PREFIX}{_token(call.id)}{CALL_SEPARATOR}{_token(call.name)}"
        parts.append(f"\n{line}\n\n{_fenced(call.arguments, 'json')}")
    if message.content is None:
        parts.append(f"\n{NO_CONTENT_LINE}\n")
    else:
        parts.append("\n" + _fenced(message.content))
    return "".join(parts)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _render_chunk(info: ChunkInfo, folded: Sequence[Message], shrunk: Sequence[Message]) -> str:
    front = {
        "session": info.session,
        "chunk": info.number,
        "topics": info.topics,
        "first_id": info.first_id,
        "last_id": info.last_id,
        "message_count": info.message_count,
        "shrunk_count": info.shrunk_count,
        "tokens": info.tokens,
        "created": info.created,
        "merged": list(info.merged),
    }
    lines = ["---"]
    lines += [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in front.items()]
    lines += ["---", "", f"# Archived conversation, chunk {info.number}", ""]
    if info.topics:
        lines += [f"Topics: {_one_line(info.topics)}", ""]
    lines += [
        f"Messages {_one_line(info.first_id)} to {_one_line(info.last_id)}, word for word "
        f"({info.message_count} messages, about {info.tokens} tokens).",
        "",
        FOLDED_HEADING,
        "",
    ]
    parts = ["\n".join(lines) + "\n"]
    parts += [_render_message(m) + "\n" for m in folded]
    if shrunk:
        parts.append(
            f"{SHRUNK_HEADING}\n\nThese messages are still in the live conversation, shortened "
            "to a stub; their full original text is below.\n\n"
        )
        parts += [_render_message(m) + "\n" for m in shrunk]
    return "".join(parts)


# -- reading --------------------------------------------------------------------------------


def _parse_front_matter(lines: Sequence[str]) -> tuple[dict[str, Any], int]:
    """(fields, index of the line after the closing ---)."""
    if not lines or lines[0] != "---":
        raise ChunkFormatError("no front matter")
    fields: dict[str, Any] = {}
    for index in range(1, len(lines)):
        line = lines[index]
        if line == "---":
            return fields, index + 1
        key, sep, value = line.partition(": ")
        if not sep:
            raise ChunkFormatError(f"bad front-matter line: {line!r}")
        try:
            fields[key] = json.loads(value)
        except json.JSONDecodeError:
            raise ChunkFormatError(f"bad front-matter value for {key}") from None
    raise ChunkFormatError("front matter not closed")


def _info_from_fields(fields: dict[str, Any], number: int, path: Path) -> ChunkInfo:
    missing = [key for key in REQUIRED_KEYS if key not in fields]
    if missing:
        raise ChunkFormatError(f"front matter lacks {', '.join(missing)}")
    strings = ("session", "topics", "first_id", "last_id", "created")
    integers = ("message_count", "tokens")
    merged = fields["merged"]
    shrunk_count = fields.get("shrunk_count", 0)
    if (
        not all(isinstance(fields[key], str) for key in strings)
        or not all(type(fields[key]) is int for key in integers)
        or type(shrunk_count) is not int
        or not isinstance(merged, list)
        or not all(isinstance(t, str) for t in merged)
    ):
        raise ChunkFormatError("front-matter value of the wrong type")
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


def _read_front_matter(path: Path, number: int) -> ChunkInfo:
    """Reads only the first lines of the file."""
    lines: list[str] = []
    with path.open("rb") as handle:
        for _ in range(MAX_FRONT_MATTER_LINES):
            raw = handle.readline(MAX_FRONT_MATTER_LINE_BYTES)
            if not raw:
                break
            if not raw.endswith(b"\n"):
                raise ChunkFormatError("front-matter line too long or file cut short")
            line = raw.decode(ENCODING, ENCODING_ERRORS).removesuffix("\n")
            lines.append(line)
            if line == "---" and len(lines) > 1:
                break
    fields, _ = _parse_front_matter(lines)
    return _info_from_fields(fields, number, path)


class _Cursor:
    """Walks a chunk's text line by line ("\\n" only: content may hold \\r and other breaks)."""

    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def peek(self) -> str:
        end = self.text.find("\n", self.pos)
        return self.text[self.pos : end if end != -1 else len(self.text)]

    def advance(self) -> str:
        line = self.peek()
        self.pos = min(len(self.text), self.pos + len(line) + 1)
        return line

    def skip_blank(self) -> None:
        while not self.at_end() and self.peek() == "":
            self.advance()

    def fenced(self) -> str:
        """The content of the fenced block starting at the current line."""
        match = FENCE_LINE.match(self.advance())
        if match is None:
            raise ChunkFormatError("expected a code fence")
        fence = match.group(1)
        start = self.pos
        # The content has no backtick run as long as its fence, so the first newline+fence
        # (followed by a newline or the end) is the closing one.
        close = self.text.find("\n" + fence, start)
        while close != -1:
            after = close + 1 + len(fence)
            if after == len(self.text) or self.text[after] == "\n":
                break
            close = self.text.find("\n" + fence, close + 1)
        if close == -1:
            raise ChunkFormatError("unclosed code fence")
        content = self.text[start:close]
        self.pos = min(len(self.text), close + 1 + len(fence) + 1)
        return content


def _parse_tokens(text: str, separator: str) -> list[str | None]:
    """The fields of a header or call line, written by _token() and joined by separator."""
    decoder = json.JSONDecoder()
    tokens: list[str | None] = []
    pos = 0
    while True:
        if text.startswith('"', pos):
            try:
                value, end = decoder.raw_decode(text, pos)
            except json.JSONDecodeError:
                raise ChunkFormatError(f"bad quoted field in {text!r}") from None
            if not isinstance(value, str):
                raise ChunkFormatError(f"bad quoted field in {text!r}")
            tokens.append(value)
        else:
            end = text.find(separator, pos)
            end = len(text) if end == -1 else end
            bare = text[pos:end]
            if bare != NONE_TOKEN and not BARE_TOKEN.match(bare):
                raise ChunkFormatError(f"bad field {bare!r}")
            tokens.append(None if bare == NONE_TOKEN else bare)
        if end == len(text):
            return tokens
        if not text.startswith(separator, end):
            raise ChunkFormatError(f"bad separator in {text!r}")
        pos = end + len(separator)


def _parse_message(cursor: _Cursor) -> Message:
    fields = _parse_tokens(cursor.advance().removeprefix(HEADER_PREFIX), HEADER_SEPARATOR)
    if len(fields) not in (2, 4) or fields[0] is None or fields[1] is None:
        raise ChunkFormatError("bad message header")
    meta: dict[str, Any] = {}
    calls: list[ToolCall] = []
    cursor.skip_blank()
    if cursor.peek().startswith(META_PREFIX):
        try:
            meta = json.loads(cursor.advance().removeprefix(META_PREFIX))
        except json.JSONDecodeError:
            raise ChunkFormatError("bad meta line") from None
        if not isinstance(meta, dict):
            raise ChunkFormatError("meta is not an object")
        cursor.skip_blank()
    blocks: tuple[dict[str, Any], ...] = ()
    reasoning: str | None = None
    if cursor.peek().startswith(THINKING_PREFIX):
        try:
            thinking = json.loads(cursor.advance().removeprefix(THINKING_PREFIX))
            blocks = tuple(dict(block) for block in thinking["blocks"])
            reasoning = thinking["text"]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise ChunkFormatError("bad thinking line") from None
        if reasoning is not None and not isinstance(reasoning, str):
            raise ChunkFormatError("bad thinking text")
        cursor.skip_blank()
    while cursor.peek().startswith(CALL_PREFIX):
        call_fields = _parse_tokens(cursor.advance().removeprefix(CALL_PREFIX), CALL_SEPARATOR)
        if len(call_fields) != 2 or call_fields[0] is None or call_fields[1] is None:
            raise ChunkFormatError("bad tool call line")
        cursor.skip_blank()
        calls.append(ToolCall(call_fields[0], call_fields[1], cursor.fenced()))
        cursor.skip_blank()
    content: str | None
    if cursor.peek() == NO_CONTENT_LINE:
        cursor.advance()
        content = None
    else:
        content = cursor.fenced()
    name, call_id = (fields[2], fields[3]) if len(fields) == 4 else (None, None)
    return Message(
        role=fields[1],  # type: ignore[arg-type]  # roles are written from Message.role
        content=content,
        tool_calls=tuple(calls),
        tool_call_id=call_id,
        name=name,
        id=fields[0],
        meta=meta,
        thinking_blocks=blocks,
        reasoning_content=reasoning,
    )


def _parse_chunk(text: str) -> tuple[dict[str, Any], list[Message], list[Message]]:
    """(front matter, folded messages, shrunk originals). Parsed by structure and fences, so
    nothing inside a message's content is ever mistaken for a header."""
    head_end = 0
    lines: list[str] = []
    while len(lines) < MAX_FRONT_MATTER_LINES and head_end < len(text):
        end = text.find("\n", head_end)
        end = len(text) if end == -1 else end
        lines.append(text[head_end:end])
        head_end = end + 1
        if lines[-1] == "---" and len(lines) > 1:
            break
    fields, _ = _parse_front_matter(lines)
    cursor = _Cursor(text, min(head_end, len(text)))
    folded: list[Message] = []
    shrunk: list[Message] = []
    target = folded
    while not cursor.at_end():
        line = cursor.peek()
        if line.startswith(HEADER_PREFIX):
            target.append(_parse_message(cursor))
            continue
        if line == SHRUNK_HEADING:
            target = shrunk
        cursor.advance()  # title, topics line, headings, blank lines
    return fields, folded, shrunk


# -- the archive ----------------------------------------------------------------------------


class ChunkArchive:
    """The chunks of one session in `directory` (the session's `chunks/` folder)."""

    def __init__(self, directory: Path, session_id: str) -> None:
        self.directory = Path(directory)
        self.session_id = session_id
        # Front matter of files already seen, keyed by (path, mtime_ns, size): a changed
        # file gets a new key, so chunks() re-reads only what changed.
        self._cache: dict[tuple[Path, int, int], ChunkInfo] = {}
        # Reentrant: merge_into_last falls back to write_chunk while holding it.
        self._lock = threading.RLock()
        # Values never written (the configured API key; agent.assemble sets them).
        self.secrets = KnownSecrets()

    def path(self, number: int) -> Path:
        return self.directory / CHUNK_NAME_FORMAT.format(number)

    def _numbered_files(self) -> list[tuple[int, Path]]:
        try:
            entries = list(os.scandir(self.directory))
        except OSError:  # no directory yet, or not readable: no chunks to show
            return []
        found = []
        for entry in entries:
            match = CHUNK_NAME.match(entry.name)
            if match is not None:
                found.append((int(match.group(1)), Path(entry.path)))
        return sorted(found)

    def chunks(self) -> list[ChunkInfo]:
        """Readable chunks, ascending by number; broken or unreadable files are skipped."""
        result: list[ChunkInfo] = []
        cache: dict[tuple[Path, int, int], ChunkInfo] = {}
        for number, path in self._numbered_files():
            try:
                stat = path.stat()
                key = (path, stat.st_mtime_ns, stat.st_size)
                info = self._cache.get(key)
                if info is None:
                    info = _read_front_matter(path, number)
            except (OSError, ValueError):
                continue
            cache[key] = info
            result.append(info)
        self._cache = cache
        return result

    def read_parts(self, number: int) -> tuple[list[Message], list[Message]]:
        """(folded messages, shrunk originals) of a chunk. Raises OSError or ChunkFormatError."""
        _, folded, shrunk = _parse_chunk(self._read_text(self.path(number)))
        return folded, shrunk

    def read_messages(self, number: int) -> list[Message]:
        """All messages of a chunk: the folded ones, then the shrunk originals."""
        folded, shrunk = self.read_parts(number)
        return folded + shrunk

    def find(self, message_id: str) -> tuple[int, Message] | None:
        """The oldest chunk holding the message, and its archived copy. Within one chunk the
        shrunk original is preferred to a folded stub of the same message."""
        marker = HEADER_PREFIX + _token(message_id)
        for info in self.chunks():
            try:
                text = self._read_text(info.path)
                if marker not in text:
                    continue
                _, folded, shrunk = _parse_chunk(text)
            except (OSError, ValueError):
                continue
            for message in (*shrunk, *folded):
                if message.id == message_id:
                    return info.number, message
        return None

    def write_chunk(
        self,
        messages: Sequence[Message],
        *,
        topics: str,
        tokens: int,
        shrunk: Sequence[Message] = (),
    ) -> ChunkInfo:
        """A new chunk numbered one past the highest chunk file present (broken ones count)."""
        if not messages and not shrunk:
            raise ValueError("a chunk needs at least one message")
        with self._lock:
            self._ensure_directory()
            files = self._numbered_files()
            number = files[-1][0] + 1 if files else 1
            info = ChunkInfo(
                number=number,
                path=self.path(number),
                topics=topics,
                first_id=messages[0].id if messages else "",
                last_id=messages[-1].id if messages else "",
                message_count=len(messages),
                tokens=tokens,
                created=_now(),
                merged=(),
                session=self.session_id,
                shrunk_count=len(shrunk),
            )
            return self._store(info, messages, shrunk)

    def merge_into_last(
        self,
        messages: Sequence[Message],
        *,
        topics: str,
        tokens: int,
        shrunk: Sequence[Message] = (),
    ) -> ChunkInfo:
        """Append to the newest chunk (it continues the same task): new topics, summed tokens,
        a merge time recorded. Shrunk originals already in that chunk are not repeated. With no
        chunk, or a newest chunk that cannot be read, a new chunk is written instead."""
        with self._lock:
            files = self._numbered_files()
            if not files:
                return self.write_chunk(messages, topics=topics, tokens=tokens, shrunk=shrunk)
            number, path = files[-1]
            try:
                fields, old_folded, old_shrunk = _parse_chunk(self._read_text(path))
                old = _info_from_fields(fields, number, path)
            except (OSError, ValueError):
                return self.write_chunk(messages, topics=topics, tokens=tokens, shrunk=shrunk)
            seen = {m.id for m in old_shrunk}
            new_shrunk = [*old_shrunk, *(m for m in shrunk if m.id not in seen)]
            folded = [*old_folded, *messages]
            info = ChunkInfo(
                number=old.number,
                path=old.path,
                topics=topics,
                first_id=folded[0].id if folded else "",
                last_id=folded[-1].id if folded else "",
                message_count=len(folded),
                tokens=old.tokens + tokens,
                created=old.created,
                merged=(*old.merged, _now()),
                session=old.session,
                shrunk_count=len(new_shrunk),
            )
            return self._store(info, folded, new_shrunk)

    def copy_from(self, other: ChunkArchive) -> ChunkInfo | None:
        """Copy every chunk of another session's archive here (a fork's inheritance); returns
        the newest copied chunk. Copies are written like chunks: atomic, private."""
        with self._lock:
            self._ensure_directory()
            newest = None
            for info in other.chunks():
                data = info.path.read_bytes()
                atomic_write(self.path(info.number), data)
                newest = info
            return next((c for c in self.chunks() if newest and c.number == newest.number), None)

    def reconcile(self, recorded: dict[str, Any] | None) -> list[str]:
        """Undo archive writes the journal never recorded (a crash between writing a chunk and
        swapping in the rebuilt history): chunk files past the recorded one are set aside
        (renamed with a leading dot, which chunks() ignores), and a recorded chunk that grew
        by an unrecorded merge is cut back. Returns one note per repair."""
        notes: list[str] = []
        number = int(recorded["number"]) if recorded else 0
        with self._lock:
            for found, path in self._numbered_files():
                if found > number:
                    os.replace(path, path.with_name(f".unrecorded-{path.name}"))
                    notes.append(f"chunk {found} was written but never recorded: set aside")
            if not recorded:
                return notes
            path = self.path(number)
            try:
                fields, folded, shrunk = _parse_chunk(self._read_text(path))
                old = _info_from_fields(fields, number, path)
            except (OSError, ValueError):
                return notes
            keep, keep_shrunk = int(recorded["messages"]), int(recorded["shrunk"])
            if len(folded) <= keep and len(shrunk) <= keep_shrunk:
                return notes
            folded, shrunk = folded[:keep], shrunk[:keep_shrunk]
            info = dataclasses.replace(
                old,
                topics=str(recorded.get("topics", old.topics)),
                first_id=folded[0].id if folded else "",
                last_id=folded[-1].id if folded else "",
                message_count=len(folded),
                tokens=int(recorded.get("tokens", old.tokens)),
                merged=old.merged[: int(recorded.get("merges", len(old.merged)))],
                shrunk_count=len(shrunk),
            )
            self._store(info, folded, shrunk)
            notes.append(f"chunk {number} held an unrecorded merge: cut back")
        return notes

    # -- helpers ---------------------------------------------------------------------------

    @staticmethod
    def _read_text(path: Path) -> str:
        try:
            return path.read_bytes().decode(ENCODING, ENCODING_ERRORS)
        except UnicodeDecodeError as error:
            raise ChunkFormatError(f"{path.name} is not UTF-8 text: {error}") from None

    def _ensure_directory(self) -> None:
        if self.directory.is_dir():
            return
        self.directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        os.chmod(self.directory, DIR_MODE)  # mkdir's mode is filtered by the umask
        fsync_dir(self.directory.parent)

    def _store(
        self, info: ChunkInfo, folded: Sequence[Message], shrunk: Sequence[Message]
    ) -> ChunkInfo:
        folded = [self.secrets.message(m) for m in folded]
        shrunk = [self.secrets.message(m) for m in shrunk]
        data = _render_chunk(info, folded, shrunk).encode(ENCODING, ENCODING_ERRORS)
        atomic_write(info.path, data)
        stat = info.path.stat()
        self._cache[(info.path, stat.st_mtime_ns, stat.st_size)] = info
        return info
