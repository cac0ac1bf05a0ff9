"""read_archive's read action: a chunk, or the messages around one id, as numbered pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sessions.archive_query import (
    PAGE_CHARS,
    Entry,
    pack_pages,
    split_pages,
    unreadable_reason,
)
from sessions.chunk_blocks import CHUNK_IMAGES_DIR
from sessions.messages import Message
from tools.base import ToolContext, ToolError
from tools.kept_output_reader import READER_TOOL_NAME, read_kept_output
from tools.output_budget import OutputBudget

if TYPE_CHECKING:
    from sessions.archive import ChunkArchive
from tools.archive_lookup import (
    EMPTY_ARCHIVE,
    info_for,
    normalise_id,
    plural,
    ranges,
    read_entries,
    who,
)

# Characters of a page kept for a message part's header line and its "continues" note.
PART_OVERHEAD_CHARS = 300
# The smallest piece a huge message is split into, however small the page: a part must carry
# some of the message next to its header, or a read would take pages of headers alone.
MIN_PART_CHARS = 200
# The smallest page, however small the tool-output budget: a page must hold a few lines.
MIN_PAGE_CHARS = 1_000
# Tokens of a page's budget kept for its title and footer lines.
PAGE_FRAME_TOKENS = 120
# Shrunk-original ids named in an "unknown message id" error before the rest are counted.
MAX_IDS_IN_ERROR = 10
# Joins the message blocks of a read page.
BLOCK_SEPARATOR = "\n\n"


# -- read ---------------------------------------------------------------------------------------


def _header(entry: Entry, part: str = "") -> str:
    """`[m12 · assistant]`, `[m13 · tool read_file · call_abc]`, plus any notes."""
    message = entry.message
    fields = [message.id or "(no id)", who(message)]
    if message.tool_call_id:
        fields.append(message.tool_call_id)
    if entry.original:
        fields.append("shrunk original, full text")
    if part:
        fields.append(part)
    return "[" + " · ".join(fields) + "]"


def _body(message: Message) -> str:
    """The content verbatim, then each tool call with its raw arguments, then each attached
    image, one per line."""
    lines: list[str] = []
    if message.content:
        lines.append(message.content)
    elif not message.tool_calls:
        lines.append("(empty content)" if message.content == "" else "(no content)")
    lines += [f"tool call {c.id}: {c.name} {c.arguments}" for c in message.tool_calls]
    lines += [
        f"[image attached: {i.label()} ({i.format}), archived with the chunk as "
        f"{CHUNK_IMAGES_DIR}/{i.file}]"
        for i in message.images
    ]
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


def render_page(
    entries: Sequence[Entry], title: str, page: int, again: str, size: int
) -> tuple[str, dict[str, Any]]:
    """One page of a read: a title line, the blocks, and a footer saying how to go on."""
    pages = _paginate(entries, size)
    if page > len(pages):
        raise ToolError(f"page {page} does not exist: this read has {plural(len(pages), 'page')}")
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
    held = f"{folded[0]}-{folded[-1]} ({plural(len(folded), 'message')})" if folded else "none"
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
    info_for(archive, number)
    entries = read_entries(archive, number)
    if not entries:
        raise ToolError(f"chunk {number} holds no messages")
    first = _position(entries, from_id, number) if from_id else 0
    last = _position(entries, to_id, number, first) if to_id else len(entries) - 1
    chosen = entries[first : last + 1]
    if len(chosen) == len(entries):
        folded = [entry.message.id for entry in entries if not entry.original]
        originals = len(entries) - len(folded)
        title = f"chunk {number}: " + (
            f"{plural(len(folded), 'message')}, {folded[0]} to {folded[-1]}" if folded else ""
        )
        if originals:
            title += (", then " if folded else "") + plural(originals, "shrunk original")
    else:
        title = (
            f"chunk {number}: messages {chosen[0].message.id} to {chosen[-1].message.id} "
            f"({len(chosen)} of {len(entries)})"
        )
    again = f"chunk={number}"
    again += f" from_id={from_id}" if from_id else ""
    again += f" to_id={to_id}" if to_id else ""
    text, meta = render_page(chosen, title, page, again, size)
    return text, {**meta, "chunk": number, "messages": len(chosen)}


def _read_message(
    archive: ChunkArchive, message_id: str, chunk: int | None, page: int, size: int
) -> tuple[str, dict[str, Any]]:
    """One message by id: the shrunk original when there is one (what stubs cite)."""
    if chunk is not None:
        info_for(archive, chunk)
        entries = read_entries(archive, chunk)
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
            numbers = ranges([info.number for info in infos])
            raise ToolError(
                f"no message {message_id} in the archive (chunks {numbers} hold "
                f"{infos[0].first_id} to {infos[-1].last_id}); messages still in the "
                "conversation are not archived"
            )
        number, message = found
        # find() prefers a shrunk original; ask the chunk again to know which one it gave.
        original = any(
            e.original and e.message.id == message_id for e in read_entries(archive, number)
        )
        entry = Entry(number, message, original)
    title = f"message {message_id} from chunk {entry.chunk}"
    if entry.original:
        title += ", the full original of an output shrunk in the live conversation"
    again = f"id={message_id}" + (f" chunk={chunk}" if chunk is not None else "")
    text, meta = render_page([entry], title, page, again, size)
    return text, {**meta, "chunk": entry.chunk, "messages": 1}


def read_pages(
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
    from_id = normalise_id(args["from_id"]) if "from_id" in args else None
    to_id = normalise_id(args["to_id"]) if "to_id" in args else None
    if "id" in args:
        if from_id or to_id:
            raise ToolError("give either `id` (one message) or `from_id`/`to_id` (a range)")
        return _read_message(archive, normalise_id(args["id"]), chunk, page, size)
    if chunk is None:
        raise ToolError(
            "action=read needs `chunk` (a number from action=list), `id` (a message id, e.g. "
            "m45) or `output` (a kept tool output's number)"
        )
    return _read_chunk(archive, chunk, from_id, to_id, page, size)
