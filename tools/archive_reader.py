"""The read_archive tool: list, search and read back the verbatim chunks folded out of context."""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from sessions.archive_query import (
    MAX_HITS,
    QueryError,
    SearchCancelled,
    chunk_entries,
    compile_query,
    flat,
    search,
)
from tools.base import Tool, ToolContext, ToolError, ToolOutput
from tools.kept_output_reader import READER_TOOL_NAME
from tools.output_budget import OutputBudget, lines_that_fit

if TYPE_CHECKING:
    from sessions.archive import ChunkArchive
from tools.archive_lookup import (
    EMPTY_ARCHIVE,
    clip,
    hit_line,
    info_for,
    plural,
    ranges,
)
from tools.archive_pages import PAGE_FRAME_TOKENS, read_pages
from tools.archive_project import list_sessions, read_session, search_sessions

# Characters of a chunk's topics shown by action=list: a line, not a paragraph.
MAX_TOPIC_CHARS = 200
# Chunks shown by action=list, newest kept: far beyond any real session's folds; it only
# bounds the output should a session somehow fold thousands of times.
MAX_LISTED_CHUNKS = 300
# What the tool can do: the `action` argument's values.
ACTIONS = ("list", "search", "read")
# Where it looks: this session's archive, or every session of the workspace (archive_project).
SCOPES = ("session", "project")


# -- list ---------------------------------------------------------------------------------------


def _list(archive: ChunkArchive) -> tuple[str, dict[str, Any]]:
    infos = archive.chunks()
    if not infos:
        return EMPTY_ARCHIVE, {"chunks": 0}
    shown = infos[-MAX_LISTED_CHUNKS:]
    lines = [f"{plural(len(infos), 'chunk')} in the archive, oldest first:"]
    if len(shown) < len(infos):
        lines.append(f"[{len(infos) - len(shown)} older chunks not shown; use action=search]")
    for info in shown:
        if info.message_count > 1:
            span = f"messages {info.first_id}-{info.last_id}"
        else:
            span = f"message {info.first_id}" if info.message_count else "no folded messages"
        counts = plural(info.message_count, "message")
        if info.shrunk_count:
            counts += f" + {plural(info.shrunk_count, 'shrunk original')}"
        created = f"created {info.created}"
        if info.merged:
            created += f", last merged {info.merged[-1]}"
        topics = clip(flat(info.topics).strip(), MAX_TOPIC_CHARS) or "no topics"
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
        numbers = [info_for(archive, chunk).number]
    else:
        numbers = [info.number for info in archive.chunks()]
        if not numbers:
            return EMPTY_ARCHIVE, {"hits": 0}
    where = f"chunk {numbers[0]}" if chunk is not None else f"chunks {ranges(numbers)}"
    try:
        found = search(query, numbers, lambda n: chunk_entries(archive, n), stop.is_set)
    except SearchCancelled:
        raise ToolError("search cancelled") from None
    notes = [f"[chunk {number} cannot be read: {why}; skipped]" for number, why in found.skipped]
    if found.stopped_early:
        if not found.hits:
            raise ToolError(found.stopped_early)
        notes.append(f"[search stopped early: {found.stopped_early}]")
    if chunk is not None and found.skipped:
        raise ToolError(f"chunk {chunk} cannot be read: {found.skipped[0][1]}")
    hits = found.hits
    meta = {"hits": len(hits)}
    if not hits:
        return "\n".join([f"no hits for {query.described} in {where}", *notes]), meta
    lines = [f"{plural(len(hits), 'hit')} for {query.described} in {where}, oldest first:"]
    listed = [hit_line(hit, [f"chunk {hit.entry.chunk}"]) for hit in hits[:MAX_HITS]]
    shown = max(1, lines_that_fit(listed, budget.minus(PAGE_FRAME_TOKENS)))
    lines += listed[:shown]
    rest = hits[shown:]
    if rest:
        rest_chunks = ranges(sorted({hit.entry.chunk for hit in rest}))
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


# -- the tool -----------------------------------------------------------------------------------


def _action(args: dict[str, Any]) -> str:
    """The action asked for; when omitted, read if a chunk or id is given, search if a query is,
    else list."""
    if "action" in args:
        return str(args["action"])
    if any(key in args for key in ("id", "from_id", "chunk", "output")):
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
        "case_sensitive": {"type": "boolean"},
        "chunk": {"type": "integer", "minimum": 1, "description": "Read or search this chunk."},
        "id": {"type": "string", "description": 'read: one message, e.g. "m45".'},
        "from_id": {"type": "string", "description": "read: first message id of a range."},
        "to_id": {"type": "string", "description": "read: last message id of a range."},
        "page": {"type": "integer", "minimum": 1, "description": "read: page (1-based)."},
        "output": {"type": "integer", "minimum": 1, "description": "read: a kept tool output."},
        "offset": {"type": "integer", "minimum": 1, "description": "output: first line."},
        "limit": {"type": "integer", "minimum": 1, "description": "output: most lines."},
        # No descriptions: the tool's says what they do. Its schema rides in every request, and
        # in a 4k window the schemas already take half (every token here is room for results).
        "scope": {"type": "string", "enum": list(SCOPES)},
        "session": {"type": "string"},
    },
    "additionalProperties": False,
}


class ArchiveReaderTool(Tool):
    """Read back this session's archive of folded messages, word for word."""

    name = READER_TOOL_NAME
    description = (
        "The archive of this conversation's folded messages, word for word, and of tool "
        "outputs too long to show. Use it for exact text from before a fold. action=list: the "
        "chunk index. action=search `query`: hits with chunk, message id and snippet. "
        "action=read: a `chunk` (optionally `from_id`/`to_id`), one message by `id` (as a stub "
        "cites it), or a kept `output` by number from line `offset`. Long reads come in pages. "
        "Default action: read with chunk, id or output, search with query, else list. "
        "scope=project: earlier sessions of this workspace too; read their messages with "
        "`session`."
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
        project = args.get("scope") == "project" or (action == "search" and "session" in args)

        def work() -> tuple[str, dict[str, Any]]:
            if action == "read" and "session" in args:
                return read_session(self.archive, args, ctx)
            if project and action == "list":
                return list_sessions(self.archive, ctx)
            if project and action == "search":
                return search_sessions(self.archive, args, ctx, stop)
            if action == "list":
                return _list(self.archive)
            if action == "search":
                case_sensitive = bool(args.get("case_sensitive", False))
                query, chunk = args["query"], args.get("chunk")
                return _search(self.archive, query, case_sensitive, chunk, stop, ctx.budget)
            return read_pages(self.archive, args, ctx)

        try:
            text, meta = await asyncio.to_thread(work)
        except asyncio.CancelledError:
            stop.set()  # the search checks this between messages and gives up
            raise
        return ToolOutput(text, meta={"action": action, **meta})
