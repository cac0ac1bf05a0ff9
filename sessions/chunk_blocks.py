"""One archived message as a markdown block of a chunk file: writing it and reading it back."""

from __future__ import annotations

import json
import re
from typing import Any

from sessions.image_ref import ImageRef
from sessions.messages import Message, ToolCall

# The shortest code fence CommonMark accepts; content with backtick runs gets a longer one.
MIN_FENCE = 3
# Written instead of a fence when the content is None (an assistant turn with only tool calls),
# so None and "" stay distinct.
NO_CONTENT_LINE = "_(no text content)_"
# A list item naming one tool call (`- call call_abc: read_file`); its arguments follow fenced.
CALL_PREFIX = "- call "
# A list item holding pleat's own flags on the message, one JSON object.
META_PREFIX = "- meta: "
# An assistant reply's reasoning as the provider gave it (blocks with signatures, or plain
# reasoning content), one JSON line, so a message read back is the message that was folded.
THINKING_PREFIX = "- thinking: "
# A list item holding a message's attached images, one JSON array of their references; a
# markdown image link to each archived copy follows, for a person reading the chunk.
IMAGES_PREFIX = "- images: "
# Where a chunk's copies of its images are, beside the chunk files (links are relative to it).
CHUNK_IMAGES_DIR = "images"
# Starts the markdown image link written for each attached image.
IMAGE_LINK_PREFIX = "!["
# What an image link's alt text may not hold (brackets and backslashes would end or escape the
# link, control characters garble a terminal), and its length at most: a file name and size.
ALT_FORBIDDEN = re.compile(r"[\[\]\\\x00-\x1f\x7f-\x9f]")
MAX_ALT_CHARS = 200
# A message block starts with a level-3 heading: `### m12 · tool · read_file · call_abc`.
HEADER_PREFIX = "### "
# Between the fields of a heading: a middle dot, which reads well and is rare in ids and names
# (a field holding it is JSON-quoted, see BARE_TOKEN).
HEADER_SEPARATOR = " · "
# Between a call's id and its tool name on a call line.
CALL_SEPARATOR = ": "
# Header fields written bare when they look like ordinary ids and names (no spaces, quotes or
# separators); anything else is JSON-encoded so the header still parses unambiguously.
BARE_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/+=@#-]*\Z")
# Stands for a missing field (None) in a header or call line: not a BARE_TOKEN, so no id or
# name is ever mistaken for it.
NONE_TOKEN = "-"
# An opening fence: three or more backticks, then an optional info string (`json`).
FENCE_LINE = re.compile(r"(`{3,})([^`]*)\Z")
# A run of backticks in content: the fence around it must be longer than the longest run.
BACKTICK_RUN = re.compile(r"`+")


class ChunkFormatError(ValueError):
    """A chunk file that does not follow the archive format."""


# -- writing --------------------------------------------------------------------------------


def _fence_for(text: str) -> str:
    longest = max((len(run) for run in BACKTICK_RUN.findall(text)), default=0)
    return "`" * max(MIN_FENCE, longest + 1)


def _fenced(text: str, info: str = "") -> str:
    fence = _fence_for(text)
    return f"{fence}{info}\n{text}\n{fence}\n"


def token(value: str | None) -> str:
    """A header or call field as written: bare when unambiguous, else JSON; None as `-`."""
    if value is None:
        return NONE_TOKEN
    if BARE_TOKEN.match(value):
        return value
    return json.dumps(value, ensure_ascii=False)


def heading(message_id: str) -> str:
    """How the heading line of the message with this id begins (id field and its separator)."""
    return HEADER_PREFIX + token(message_id) + HEADER_SEPARATOR


def _header(message: Message) -> str:
    fields = [token(message.id), token(message.role)]
    if message.role == "tool" or message.name is not None or message.tool_call_id is not None:
        fields += [token(message.name), token(message.tool_call_id)]
    return HEADER_PREFIX + HEADER_SEPARATOR.join(fields)


def image_link(image: ImageRef) -> str:
    """`![shot.png 800×600](images/<sha256>.png)`: the archived copy, relative to the chunk."""
    alt = ALT_FORBIDDEN.sub("_", image.label())[:MAX_ALT_CHARS]
    return f"{IMAGE_LINK_PREFIX}{alt}]({CHUNK_IMAGES_DIR}/{image.file})"


def render_message(message: Message) -> str:
    """The message's block: heading, meta and thinking lines, images, tool calls, fenced
    content."""
    parts = [_header(message) + "\n"]
    if message.meta:
        meta = json.dumps(message.meta, ensure_ascii=False, default=str)
        parts.append(f"\n{META_PREFIX}{meta}\n")
    if message.thinking_blocks or message.reasoning_content is not None:
        thinking = {"blocks": list(message.thinking_blocks), "text": message.reasoning_content}
        parts.append(f"\n{THINKING_PREFIX}{json.dumps(thinking, ensure_ascii=False)}\n")
    if message.images:
        records = json.dumps([i.to_record() for i in message.images], ensure_ascii=False)
        links = "\n".join(image_link(image) for image in message.images)
        parts.append(f"\n{IMAGES_PREFIX}{records}\n\n{links}\n")
    for call in message.tool_calls:
        line = f"{CALL_PREFIX}{token(call.id)}{CALL_SEPARATOR}{token(call.name)}"
        parts.append(f"\n{line}\n\n{_fenced(call.arguments, 'json')}")
    if message.content is None:
        parts.append(f"\n{NO_CONTENT_LINE}\n")
    else:
        parts.append("\n" + _fenced(message.content))
    return "".join(parts)


# -- reading --------------------------------------------------------------------------------


class Cursor:
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
    """The fields of a header or call line, written by token() and joined by separator."""
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


def _json_line(cursor: Cursor, prefix: str, what: str) -> Any:
    try:
        return json.loads(cursor.advance().removeprefix(prefix))
    except (json.JSONDecodeError, RecursionError):
        raise ChunkFormatError(f"bad {what} line") from None


def _thinking(cursor: Cursor) -> tuple[tuple[dict[str, Any], ...], str | None]:
    thinking = _json_line(cursor, THINKING_PREFIX, "thinking")
    try:
        blocks = tuple(dict(block) for block in thinking["blocks"])
        reasoning = thinking["text"]
    except (KeyError, TypeError, ValueError):
        raise ChunkFormatError("bad thinking line") from None
    if reasoning is not None and not isinstance(reasoning, str):
        raise ChunkFormatError("bad thinking text")
    return blocks, reasoning


def _images(cursor: Cursor) -> tuple[ImageRef, ...]:
    records = _json_line(cursor, IMAGES_PREFIX, "images")
    if not isinstance(records, list):
        raise ChunkFormatError("bad images line")
    try:
        images = tuple(ImageRef.from_record(record) for record in records)
    except ValueError as error:
        raise ChunkFormatError(str(error)) from None
    cursor.skip_blank()
    while cursor.peek().startswith(IMAGE_LINK_PREFIX):  # the links: for people, not read back
        cursor.advance()
    return images


def parse_message(cursor: Cursor) -> Message:
    """The message whose heading is the cursor's current line; the cursor moves past it."""
    fields = _parse_tokens(cursor.advance().removeprefix(HEADER_PREFIX), HEADER_SEPARATOR)
    if len(fields) not in (2, 4) or fields[0] is None or fields[1] is None:
        raise ChunkFormatError("bad message header")
    meta: dict[str, Any] = {}
    cursor.skip_blank()
    if cursor.peek().startswith(META_PREFIX):
        meta = _json_line(cursor, META_PREFIX, "meta")
        if not isinstance(meta, dict):
            raise ChunkFormatError("meta is not an object")
        cursor.skip_blank()
    blocks: tuple[dict[str, Any], ...] = ()
    reasoning: str | None = None
    if cursor.peek().startswith(THINKING_PREFIX):
        blocks, reasoning = _thinking(cursor)
        cursor.skip_blank()
    images: tuple[ImageRef, ...] = ()
    if cursor.peek().startswith(IMAGES_PREFIX):
        images = _images(cursor)
        cursor.skip_blank()
    calls: list[ToolCall] = []
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
        images=images,
    )
