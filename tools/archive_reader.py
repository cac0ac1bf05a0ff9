"""The read_archive tool: list, search and read back the verbatim chunks folded out of context."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sessions.archive_query import (
    MAX_COUNTED_MATCHES,
    MAX_HITS,
    PAGE_CHARS,
    Entry,
    Hit,
    QueryError,
    SearchCancelled,
    chunk_entries,
    compile_query,
    flat,
    pack_pages,
    search,
    split_pages,
    unreadable_reason,
)
from sessions.messages import Message
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.kept_output_reader import READER_TOOL_NAME, read_kept_output
from tools.output_budget import OutputBudget, lines_that_fit

if TYPE_CHECKING:
    from sessions.archive import ChunkArchive, ChunkInfo

# Characters of a page kept for a message part's header line and its "continues" note.
PART_OVERHEAD_CHARS = 300
# The smallest piece a huge message is split into, however small the page: a part must carry
# some of the message next to its header, or a read would take pages of headers alone.
MIN_PART_CHARS = 200
# The smallest page, however small the tool-output budget: a page must hold a few lines.
MIN_PAGE_CHARS = 1_000
# Tokens of a page's budget kept for its title and footer lines.
PAGE_FRAME_TOKENS = 120
# Characters of a chunk's topics shown by action=list: a line, not a paragraph.
MAX_TOPIC_CHARS = 200
# Chunks shown by action=list, newest kept: far beyond any real session's folds; it only
# bounds the output should a session somehow fold thousands of times.
MAX_LISTED_CHUNKS = 300
# Shrunk-original ids named in an "unknown message id" error before the rest are counted.
MAX_IDS_IN_ERROR = 10
# Joins the message blocks of a read page.
BLOCK_SEPARATOR = "\n\n"
# What the tool can do: the `action` argument's values.
ACTIONS = ("list", "search", "read")
# The answer (or error tail) while no compaction has written a chunk yet.
EMPTY_ARCHIVE = "the archive is empty: nothing has been folded yet"
# An id given as a bare number ("45"): message ids are "m" + a number, so it means "m45".
BARE_NUMBER = re.compile(r"\d+\Z")


# -- small helpers ----------------------------------------------------------------------------


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _ranges(numbers: Sequence[int]) -> str:
    """Sorted numbers as ranges: [1, 2, 3, 5] -> "1-3, 5"."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _normalise_id(raw: str) -> str:
    """A message id as written by the model: "m45", or a bare "45" meaning the same."""
    text = raw.strip()
    if not text:
        raise ToolError("a message id cannot be empty; ids look like m45")
    return f"m{text}" if BARE_NUMBER.match(text) else text


def _chunk_numbers_line(infos: Sequence[ChunkInfo]) -> str:
    if not infos:
        return EMPTY_ARCHIVE
    return f"the archive has chunks {_ranges([i.number for i in infos])}"


def _info_for(archive: ChunkArchive, number: int) -> ChunkInfo:
    """The chunk's index entry, or a clear error naming the chunks that exist."""
    infos = archive.chunks()
    for info in infos:
        if info.number == number:
            return info
    if archive.path(number).exists():
        raise ToolError(
            f"chunk {number} is damaged and cannot be read; {_chunk_numbers_line(infos)}"
        )
    raise ToolError(f"chunk {number} does not exist; {_chunk_numbers_line(infos)}")


def _entries(archive: ChunkArchive, number: int) -> list[Entry]:
    """Every message of a chunk in archive order, or a clear error."""
    try:
        return chunk_entries(archive, number)
    except (OSError, ValueError) as exc:
        raise ToolError(f"chunk {number} cannot be read: {unreadable_reason(exc)}") from exc


# -- list ---------------------------------------------------------------------------------------


def _list(archive: ChunkArchive) -> tuple[str, dict[str, Any]]:
    infos = archive.chunks()
    if not infos:
        return EMPTY_ARCHIVE, {"chunks": 0}
    shown = infos[-MAX_LISTED_CHUNKS:]
    lines = [f"{_plural(len(infos), 'chunk')} in the archive, oldest first:"]
    if len(shown) < len(infos):
        lines.append(f"[{len(infos) - len(shown)} older chunks not shown; use action=search]")
    for info in shown:
        if info.message_count > 1:
            span = f"messages {info.first_id}-{info.last_id}"
        else:
            span = f"message {info.first_id}" if info.message_count else "no folded messages"
        counts = _plural(info.message_count, "message")
        if info.shrunk_count:
            counts += f" + {_plural(info.shrunk_count, 'shrunk original')}"
        created = f"created {info.created}"
        if info.merged:
            created += f", last merged {info.merged[-1]}"
        topics = _clip(flat(info.topics).strip(), MAX_TOPIC_CHARS) or "no topics"
        lines.append(
            f"chunk {info.number} · {span} ({counts}) · ~{info.tokens} tokens · {created} · "
            f"{topics}"
        )
    lines.append(
        f"Read one with {READER_TOOL_NAME} action=read chunk=N; find text in all of them "
        "with action=search query=..."
    )
    return "\n".join(lines), {"chunks": len(infos)}


# -- search -------------------------------------------------------------------------------------


def _who(message: Message) -> str:
    """The role, with the tool's name on tool results: "assistant", "tool read_file"."""
    return f"{message.role} {message.name}" if message.name else message.role


def _hit_line(hit: Hit) -> str:
    """`chunk 1 · m3 · tool run_command: …snippet… (4 matches in this message)`."""
    entry = hit.entry
    parts = [f"chunk {entry.chunk}", entry.message.id, _who(entry.message)]
    if entry.original:
        parts.append("shrunk original")
    if hit.label:
        parts.append(hit.label)
    line = " · ".join(parts) + ": " + hit.snippet()
    if hit.count > 1:
        many = f"{hit.count}+" if hit.count >= MAX_COUNTED_MATCHES else str(hit.count)
        line += f" ({many} matches in this message)"
    return line


def _search(
    archive: ChunkArchive,
    query_text: str,
    case_sensitive: bool,
    chunk: int | None,
    stop: threading.Event,
    budget: OutputBudget,
) -> tuple[str, dict[str, Any]]:
    """Hits in chronological order (oldest chunk first, archive order within a chunk), the same
    order as action=list and the conversation itself; hits past the cap are counted by chunk."""
    try:
        query = compile_query(query_text, case_sensitive)
    except QueryError as exc:
        raise ToolError(str(exc)) from None
    if chunk is not None:
        numbers = [_info_for(archive, chunk).number]
    else:
        numbers = [info.number for info in archive.chunks()]
        if not numbers:
            return EMPTY_ARCHIVE, {"hits": 0}
    where = f"chunk {numbers[0]}" if chunk is not None else f"chunks {_ranges(numbers)}"
    try:
        found = search(query, numbers, lambda n: chunk_entries(archive, n), stop.is_set)
    except SearchCancelled:
        raise ToolError("search cancelled") from None
    notes = [f"[chunk {number} cannot be read: {why}; skipped]" for number, why in found.skipped]
    if chunk is not None and found.skipped:
        raise ToolError(f"chunk {chunk} cannot be read: {found.skipped[0][1]}")
    hits = found.hits
    meta = {"hits": len(hits)}
    if not hits:
        return "\n".join([f"no hits for {query.described} in {where}", *notes]), meta
    lines = [f"{_plural(len(hits), 'hit')} for {query.described} in {where}, oldest first:"]
    listed = [_hit_line(hit) for hit in hits[:MAX_HITS]]
    shown = max(1, lines_that_fit(listed, budget.minus(PAGE_FRAME_TOKENS)))
    lines += listed[:shown]
    rest = hits[shown:]
    if rest:
        rest_chunks = _ranges(sorted({hit.entry.chunk for hit in rest}))
        lines.append(
            f"[{len(rest)} more hits not shown (in chunks {rest_chunks}); narrow the query or "
            "search one chunk with chunk=N]"
        )
    lines += notes
    lines.append(
        f"Read a message in full with {READER_TOOL_NAME} action=read id=<message id>, or its "
        "neighbours with action=read chunk=N from_id=... to_id=..."
    )
    return "\n".join(lines), meta


# -- read ---------------------------------------------------------------------------------------


def _header(entry: Entry, part: str = "") -> str:
    """`[m12 · assistant]`, `[m13 · tool read_file · call_abc]`, plus any notes."""
    message = entry.message
    fields = [message.id or "(no id)", _who(message)]
    if message.tool_call_id:
        fields.append(message.tool_call_id)
    if entry.original:
        fields.append("shrunk original, full text")
    if part:
        fields.append(part)
    return "[" + " · ".join(fields) + "]"


def _body(message: Message) -> str:
    """The content verbatim, then each tool call with its raw arguments, one per line."""
    lines: list[str] = []
    if message.content:
        lines.append(message.content)
    elif not message.tool_calls:
        lines.append("(empty content)" if message.content == "" else "(no content)")
    lines += [f"tool call {c.id}: {c.name} {c.arguments}" for c in message.tool_calls]
    return "\n".join(lines)


def page_chars(budget: OutputBudget) -> int:
    """Characters of messages per page under a tool-output budget (stable for one window, so a
    page number means the same page from call to call)."""
    return max(MIN_PAGE_CHARS, min(PAGE_CHARS, budget.minus(PAGE_FRAME_TOKENS).safe_chars))


def _paginate(entries: Sequence[Entry], size: int) -> list[list[str]]:
    """Message blocks packed into pages of at most `size` characters. A message is split into
    parts (each ending its page) only when it alone exceeds a page."""
    items: list[tuple[str, bool]] = []  # (block, whether a new page must follow it)
    for entry in entries:
        body = _body(entry.message)
        block = _header(entry) + "\n" + body
        if len(block) <= size:
            items.append((block, False))
            continue
        pieces = split_pages(body, max(MIN_PART_CHARS, size - PART_OVERHEAD_CHARS))
        for number, piece in enumerate(pieces, 1):
            text = _header(entry, f"part {number} of {len(pieces)}") + "\n" + piece
            last = number == len(pieces)
            if not last:
                text += f"\n[{entry.message.id} continues in part {number + 1} on the next page]"
            items.append((text, not last))
    return pack_pages(items, size, BLOCK_SEPARATOR)


def _render_page(
    entries: Sequence[Entry], title: str, page: int, again: str, size: int
) -> tuple[str, dict[str, Any]]:
    """One page of a read: a title line, the blocks, and a footer saying how to go on."""
    pages = _paginate(entries, size)
    if page > len(pages):
        raise ToolError(f"page {page} does not exist: this read has {_plural(len(pages), 'page')}")
    parts = [f"[{title} · page {page} of {len(pages)}]", *pages[page - 1]]
    if page < len(pages):
        parts.append(
            f"[page {page} of {len(pages)}; next: {READER_TOOL_NAME} action=read {again} "
            f"page={page + 1}]"
        )
    elif len(pages) > 1:
        parts.append(f"[page {page} of {len(pages)}: the end]")
    return BLOCK_SEPARATOR.join(parts), {"page": page, "pages": len(pages)}


def _position(entries: Sequence[Entry], message_id: str, number: int, after: int = 0) -> int:
    """Index of the first entry with the id at or after `after`, or an error naming the range."""
    for index in range(after, len(entries)):
        if entries[index].message.id == message_id:
            return index
    if any(entry.message.id == message_id for entry in entries):
        raise ToolError(f"to_id {message_id} comes before from_id in chunk {number}")
    folded = [e.message.id for e in entries if not e.original]
    originals = [e.message.id for e in entries if e.original]
    held = f"{folded[0]}-{folded[-1]} ({_plural(len(folded), 'message')})" if folded else "none"
    extra = ""
    if originals:
        named = ", ".join(originals[:MAX_IDS_IN_ERROR])
        more = len(originals) - MAX_IDS_IN_ERROR
        extra = f" and the shrunk originals {named}" + (f" and {more} more" if more > 0 else "")
    raise ToolError(f"message {message_id} is not in chunk {number}, which holds {held}{extra}")


def _read_chunk(
    archive: ChunkArchive,
    number: int,
    from_id: str | None,
    to_id: str | None,
    page: int,
    size: int,
) -> tuple[str, dict[str, Any]]:
    _info_for(archive, number)
    entries = _entries(archive, number)
    if not entries:
        raise ToolError(f"chunk {number} holds no messages")
    first = _position(entries, from_id, number) if from_id else 0
    last = _position(entries, to_id, number, first) if to_id else len(entries) - 1
    chosen = entries[first : last + 1]
    if len(chosen) == len(entries):
        folded = [entry.message.id for entry in entries if not entry.original]
        originals = len(entries) - len(folded)
        title = f"chunk {number}: " + (
            f"{_plural(len(folded), 'message')}, {folded[0]} to {folded[-1]}" if folded else ""
        )
        if originals:
            title += (", then " if folded else "") + _plural(originals, "shrunk original")
    else:
        title = (
            f"chunk {number}: messages {chosen[0].message.id} to {chosen[-1].message.id} "
            f"({len(chosen)} of {len(entries)})"
        )
    again = f"chunk={number}"
    again += f" from_id={from_id}" if from_id else ""
    again += f" to_id={to_id}" if to_id else ""
    text, meta = _render_page(chosen, title, page, again, size)
    return text, {**meta, "chunk": number, "messages": len(chosen)}


def _read_message(
    archive: ChunkArchive, message_id: str, chunk: int | None, page: int, size: int
) -> tuple[str, dict[str, Any]]:
    """One message by id: the shrunk original when there is one (what stubs cite)."""
    if chunk is not None:
        _info_for(archive, chunk)
        entries = _entries(archive, chunk)
        matches = [e for e in entries if e.message.id == message_id]
        if not matches:
            _position(entries, message_id, chunk)  # raises, naming the chunk's range
        entry = max(matches, key=lambda e: e.original)  # the original before a stub
    else:
        try:
            found = archive.find(message_id)
        except (OSError, ValueError) as exc:
            raise ToolError(f"the archive cannot be searched: {unreadable_reason(exc)}") from exc
        if found is None:
            infos = archive.chunks()
            if not infos:
                raise ToolError(f"no message {message_id}: {EMPTY_ARCHIVE}")
            numbers = _ranges([info.number for info in infos])
            raise ToolError(
                f"no message {message_id} in the archive (chunks {numbers} hold "
                f"{infos[0].first_id} to {infos[-1].last_id}); messages still in the "
                "conversation are not archived"
            )
        number, message = found
        # find() prefers a shrunk original; ask the chunk again to know which one it gave.
        original = any(e.original and e.message.id == message_id for e in _entries(archive, number))
        entry = Entry(number, message, original)
    title = f"message {message_id} from chunk {entry.chunk}"
    if entry.original:
        title += ", the full original of an output shrunk in the live conversation"
    again = f"id={message_id}" + (f" chunk={chunk}" if chunk is not None else "")
    text, meta = _render_page([entry], title, page, again, size)
    return text, {**meta, "chunk": entry.chunk, "messages": 1}


def _read(
    archive: ChunkArchive, args: dict[str, Any], ctx: ToolContext
) -> tuple[str, dict[str, Any]]:
    page = int(args.get("page", 1))
    if page < 1:
        raise ToolError("page must be at least 1")
    size = page_chars(OutputBudget(ctx.page_tokens, ctx.budget.count))
    if "output" in args:
        if any(key in args for key in ("chunk", "id", "from_id", "to_id", "page")):
            raise ToolError("`output` is read on its own, with `offset` and `limit` (lines)")
        return read_kept_output(ctx, int(args["output"]), args)
    chunk: int | None = args.get("chunk")
    from_id = _normalise_id(args["from_id"]) if "from_id" in args else None
    to_id = _normalise_id(args["to_id"]) if "to_id" in args else None
    if "id" in args:
        if from_id or to_id:
            raise ToolError("give either `id` (one message) or `from_id`/`to_id` (a range)")
        return _read_message(archive, _normalise_id(args["id"]), chunk, page, size)
    if chunk is None:
        raise ToolError(
            "action=read needs `chunk` (a number from action=list), `id` (a message id, e.g. "
            "m45) or `output` (a kept tool output's number)"
        )
    return _read_chunk(archive, chunk, from_id, to_id, page, size)


# -- the tool -----------------------------------------------------------------------------------


def _action(args: dict[str, Any]) -> str:
    """The action asked for; when omitted, read if a chunk or id is given, search if a query is,
    else list."""
    if "action" in args:
        return str(args["action"])
    if "id" in args or "chunk" in args or "output" in args:
        return "read"
    if "query" in args:
        return "search"
    return "list"


# The JSON schema of the arguments (module-level: class bodies should not hold mutable literals).
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "query": {"type": "string", "description": "search: a regex, or words (all must appear)."},
        "case_sensitive": {"type": "boolean", "description": "search: match case."},
        "chunk": {"type": "integer", "minimum": 1, "description": "Read or search this chunk."},
        "id": {"type": "string", "description": 'read: one message, e.g. "m45".'},
        "from_id": {"type": "string", "description": "read: first message id of a range."},
        "to_id": {"type": "string", "description": "read: last message id of a range."},
        "page": {"type": "integer", "minimum": 1, "description": "read: page (1-based)."},
        "output": {"type": "integer", "minimum": 1, "description": "read: a kept tool output."},
        "offset": {"type": "integer", "minimum": 1, "description": "output: first line."},
        "limit": {"type": "integer", "minimum": 1, "description": "output: most lines."},
    },
    "additionalProperties": False,
}


class ArchiveReaderTool(Tool):
    """Read back this session's archive of folded messages, word for word."""

    name = READER_TOOL_NAME
    description = (
        "The archive of this conversation's folded messages, word for word, and of tool "
        "outputs too long to show. Use it for exact text from before a fold. action=list: the "
        "chunk index. action=search `query`: hits with chunk, message id and snippet (text and "
        "tool-call arguments). action=read: a `chunk` (optionally `from_id`/`to_id`), one "
        "message by `id` (as a stub cites it), or a kept `output` by number from line "
        "`offset`. Long reads come in pages. Default action: read with chunk, id or output, "
        "search with query, else list."
    )
    parameters = _PARAMETERS
    read_only = True

    def __init__(self, archive: ChunkArchive) -> None:
        self.archive = archive

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        action = _action(args)
        if action not in ACTIONS:
            raise ToolError(f"unknown action {action!r}; use list, search or read")
        if action == "search" and "query" not in args:
            raise ToolError("action=search needs `query` (a regex or words)")
        stop = threading.Event()

        def work() -> tuple[str, dict[str, Any]]:
            if action == "list":
                return _list(self.archive)
            if action == "search":
                case_sensitive = bool(args.get("case_sensitive", False))
                query, chunk = args["query"], args.get("chunk")
                return _search(self.archive, query, case_sensitive, chunk, stop, ctx.budget)
            return _read(self.archive, args, ctx)

        try:
            text, meta = await asyncio.to_thread(work)
        except asyncio.CancelledError:
            stop.set()  # the search checks this between messages and gives up
            raise
        return ToolOutput(text, meta={"action": action, **meta})
