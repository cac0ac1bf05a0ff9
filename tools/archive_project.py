"""read_archive's project scope: this workspace's sessions listed, searched, and read back."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from sessions.archive_query import (
    MAX_HITS,
    Entry,
    QueryError,
    compile_query,
    unreadable_reason,
)
from sessions.archive_query import SearchCancelled as Cancelled
from sessions.project_archive import (
    ProjectHit,
    find_session,
    search_project,
    session_messages,
)
from sessions.workspace_sessions import SessionRef, Unreadable, first_request, workspace_sessions
from tools.archive_lookup import hit_line, normalise_id, plural
from tools.archive_pages import PAGE_FRAME_TOKENS, page_chars, render_page
from tools.base import ToolContext, ToolError
from tools.kept_output_reader import READER_TOOL_NAME
from tools.output_budget import OutputBudget, lines_that_fit
from tools.paths import workspace_root

if TYPE_CHECKING:
    from sessions.archive import ChunkArchive

# Sessions shown by a project list, newest first: a page of them; older ones are counted, and
# a search still reaches them.
MAX_LISTED_SESSIONS = 50
# Sessions named in the note on hits not shown: enough to narrow a search to one.
MAX_NAMED_SESSIONS = 10
# How the current session is named beside the others in project hits.
THIS_SESSION = "this session"


def _session_name(ref: SessionRef) -> str:
    """`session 20261121-201500-a1b2c3 (2026-11-21)`, a sub-agent's marked as such."""
    kind = "sub-agent session" if ref.subagent else "session"
    return f"{kind} {ref.id} ({ref.date})"


def list_sessions(archive: ChunkArchive, ctx: ToolContext) -> tuple[str, dict[str, Any]]:
    """This workspace's sessions, newest first: id, day, last activity, first request."""
    found = workspace_sessions(workspace_root(ctx.workspace))
    others = [ref for ref in found if ref.id != archive.session_id]
    if not others:
        return "no other session of this workspace (this one is the first)", {"sessions": 0}
    lines = [f"{plural(len(others), 'other session')} of this workspace, newest first:"]
    for ref in others[:MAX_LISTED_SESSIONS]:
        active = time.strftime("%Y-%m-%d %H:%M", time.localtime(ref.last_active))
        request = first_request(ref) or "(no request found)"
        lines.append(f"{_session_name(ref)} · last active {active} · {request}")
    if len(others) > MAX_LISTED_SESSIONS:
        lines.append(f"[{len(others) - MAX_LISTED_SESSIONS} older sessions not shown]")
    lines.append(
        f"Search them all with {READER_TOOL_NAME} action=search scope=project query=...; "
        "read a message with action=read session=ID id=..."
    )
    return "\n".join(lines), {"sessions": len(others)}


def _hit_line(found: ProjectHit) -> str:
    if found.session is None:
        return hit_line(found.hit, [THIS_SESSION, f"chunk {found.hit.entry.chunk}"])
    return hit_line(found.hit, [_session_name(found.session)])


def search_sessions(
    archive: ChunkArchive,
    args: dict[str, Any],
    ctx: ToolContext,
    stop: threading.Event,
) -> tuple[str, dict[str, Any]]:
    """Hits in this session's archive, then in the workspace's other sessions, newest first."""
    if "chunk" in args:
        raise ToolError("`chunk` names a chunk of this session: search it without scope=project")
    try:
        query = compile_query(args["query"], bool(args.get("case_sensitive", False)))
    except QueryError as exc:
        raise ToolError(str(exc)) from None
    only = args.get("session")
    workspace = workspace_root(ctx.workspace)
    if only is not None and only != archive.session_id and find_session(workspace, only) is None:
        raise ToolError(f"no session {only!r} in this workspace (see action=list scope=project)")
    try:
        found = search_project(query, workspace, archive, stop.is_set, only)
    except Cancelled:
        raise ToolError("search cancelled") from None
    notes = [f"[{what} cannot be read: {why}; skipped]" for what, why in found.skipped]
    if found.notice:
        notes.append(f"[{found.notice}]")
    if found.stopped_early:
        if not found.hits:
            raise ToolError(found.stopped_early)
        notes.append(f"[search stopped early: {found.stopped_early}]")
    where = f"{plural(found.searched, 'session')} of this workspace"
    meta = {"hits": len(found.hits) + sum(found.more.values()), "sessions": found.searched}
    if not found.hits:
        return "\n".join([f"no hits for {query.described} in {where}", *notes]), meta
    total = meta["hits"]
    lines = [f"{plural(total, 'hit')} for {query.described} in {where} (this session first):"]
    listed = [_hit_line(hit) for hit in found.hits[:MAX_HITS]]
    shown = max(1, lines_that_fit(listed, ctx.budget.minus(PAGE_FRAME_TOKENS)))
    lines += listed[:shown]
    rest = total - shown
    if rest:
        names = {h.session.id if h.session else THIS_SESSION for h in found.hits[shown:]}
        names |= {name or THIS_SESSION for name in found.more}
        named = ", ".join(sorted(names)[:MAX_NAMED_SESSIONS])
        lines.append(
            f"[{rest} more hits not shown (in {named}); narrow the query or search one session "
            "with session=ID]"
        )
    lines += notes
    lines.append(
        f"Read a message of another session with {READER_TOOL_NAME} action=read session=ID "
        "id=<message id> (from_id/to_id for its neighbours); one of this session's with "
        "action=read id=<message id>"
    )
    return "\n".join(lines), meta


def read_session(
    archive: ChunkArchive, args: dict[str, Any], ctx: ToolContext
) -> tuple[str, dict[str, Any]]:
    """One message (`id`), or a range (`from_id`, `to_id`), of a session of this workspace, from
    its journal: what it recorded, folded or not."""
    if "chunk" in args or "output" in args:
        raise ToolError(
            "with `session`, read messages by `id` or `from_id`/`to_id` (chunks and outputs "
            "are read in this session only)"
        )
    wanted = str(args["session"])
    ref = find_session(workspace_root(ctx.workspace), wanted)
    if ref is None:
        raise ToolError(f"no session {wanted!r} in this workspace (see action=list scope=project)")
    if "id" in args:
        if "from_id" in args or "to_id" in args:
            raise ToolError("give either `id` (one message) or `from_id`/`to_id` (a range)")
        first, last = normalise_id(args["id"]), None
    elif "from_id" in args:
        first = normalise_id(args["from_id"])
        last = normalise_id(args["to_id"]) if "to_id" in args else first
    else:
        raise ToolError("action=read with `session` needs `id` or `from_id` (and `to_id`)")
    try:
        messages, cut = session_messages(ref, first, last)
    except (OSError, Unreadable) as exc:
        raise ToolError(f"session {ref.id} cannot be read: {unreadable_reason(exc)}") from None
    if not messages:
        raise ToolError(f"no message {first} in session {ref.id} (ids come from its hits)")
    if last is not None and messages[-1].id != last and not cut:
        raise ToolError(f"to_id {last} does not follow {first} in session {ref.id}")
    page = int(args.get("page", 1))
    size = page_chars(OutputBudget(ctx.page_tokens, ctx.budget.count))
    title = f"{_session_name(ref)}: " + (
        f"message {first}" if len(messages) == 1 else f"messages {first} to {messages[-1].id}"
    )
    if cut:
        title += f" (cut at {plural(len(messages), 'message')}: read on with from_id after it)"
    again = f"session={ref.id} " + (
        f"id={first}" if "id" in args else f"from_id={first} to_id={last}"
    )
    entries = [Entry(0, message, False) for message in messages]
    text, meta = render_page(entries, title, page, again, size)
    return text, {**meta, "session": ref.id, "messages": len(messages)}
