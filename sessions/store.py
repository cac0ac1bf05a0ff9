"""Sessions on disk: create, resume (journal replay, archive reconciled, lock), list."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sessions.archive import ChunkArchive
from sessions.checkpoint_store import CHECKPOINTS_DIR, CheckpointStore
from sessions.image_store import IMAGES_DIR, SessionImages
from sessions.journal import JOURNAL_NAME, Journal, replay_journal
from sessions.lock import SessionLock
from sessions.messages import (
    Message,
    last_id_number,
    tool_result,
    unanswered_calls,
)
from sessions.outputs import OUTPUTS_DIR, KeptOutputs
from sessions.paths import data_home, is_session_id, new_session_id, private_dir, session_dir
from sessions.session_summary import JournalSummary
from sessions.usage import CallPurpose, Usage, UsageTally
from sessions.workspace_sessions import same_workspace

CHUNKS_DIR = "chunks"
# What the model reads for a tool call whose process died before it answered.
INTERRUPTED_TOOL_RESULT = "interrupted: pleat stopped before this tool call finished"
# Forks of forks are refused past this depth: each carries a summary of a summary, and three
# generations is where the Rails seed found the lineage stops being useful.
MAX_FORK_DEPTH = 3
# A session that is not the user's own conversation: a sub-agent's, journaled while a `task`
# call of its parent ran (agent/subagents/team.py). Listed under its parent, never --continue'd.
SessionKind = Literal["subagent"]
SUBAGENT: SessionKind = "subagent"
# How `pleat sessions` marks a sub-agent's session, listed under its parent's.
CHILD_MARK = "  ↳ "


class SessionError(Exception):
    """A session that cannot be opened: one clear line."""


class Session:
    """One open session: its journal, its archive, its lock. Implements agent.turn.loop.Recorder."""

    def __init__(self, session_id: str, header: dict[str, Any], *, fresh: bool) -> None:
        self.id = session_id
        directory = session_dir(session_id)
        try:
            self.directory = private_dir(directory)
        except OSError as error:
            raise SessionError(
                f"cannot use the session directory {directory}: {error.strerror or error} "
                "(set PLEAT_HOME to a writable directory)"
            ) from None
        self.header = header
        self.lock = SessionLock(self.directory, session_id)
        self.lock.acquire()
        self.archive = ChunkArchive(self.directory / CHUNKS_DIR, session_id)
        self.outputs = KeptOutputs(self.directory / OUTPUTS_DIR)
        # Copies of the images attached in this session; the archive copies those it folds.
        self.images = SessionImages(self.directory / IMAGES_DIR)
        self.archive.images = self.images
        # Old contents of the files pleat changes, for /undo and /rewind.
        self.checkpoints = CheckpointStore(self.directory / CHECKPOINTS_DIR)
        # The highest message number ever used here (a rewound history may hold lower ones):
        # new ids continue after it, so no id is used twice in a session's life.
        self.highest_id = 0
        # The usage of every model call journaled before this run (a resumed session's bill).
        self.usage_so_far = UsageTally()
        # The goal the journal last recorded (sessions/goal.py): a resumed agent starts with it.
        self.goal: str | None = None
        self.journal = Journal(self.directory)
        if fresh:
            self.journal.header(**header)

    # -- opening ----------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        workspace: Path,
        *,
        model: str,
        parent: str | None = None,
        depth: int = 0,
        kind: SessionKind | None = None,
    ) -> Session:
        """A new session; a fork's (`depth`: its generation) or a sub-agent's (`kind`
        "subagent") names its `parent`."""
        header: dict[str, Any] = {
            "id": new_session_id(),
            "workspace": str(workspace),
            "model": model,
        }
        if parent is not None and kind is None:
            header |= {"parent": parent, "fork_depth": depth}
        elif parent is not None:
            header |= {"parent": parent, "kind": kind}
        return cls(header["id"], header, fresh=True)

    @classmethod
    def resume(cls, session_id: str) -> tuple[Session, list[Message], list[str]]:
        """Open a session where it stopped. Returns it, its live history, and notes on any
        repair made (a torn last line, unrecorded chunks, interrupted tool calls)."""
        if not is_session_id(session_id):
            shown = session_id if len(session_id) <= 60 else session_id[:60] + "…"
            raise SessionError(f"{shown!r} is not a session id (see `pleat sessions`)")
        journal = session_dir(session_id) / JOURNAL_NAME
        if not journal.is_file():
            raise SessionError(f"no session {session_id!r} (see `pleat sessions`)")
        session = cls(session_id, {}, fresh=False)
        try:
            replayed = replay_journal(journal)
        except OSError as error:
            session.close()
            raise SessionError(f"cannot read session {session_id}: {error}") from None
        session.header = replayed.header
        session.usage_so_far = replayed.usage
        session.highest_id = replayed.lineage.highest_id
        session.goal = replayed.goal
        notes = list(replayed.problems)
        notes += session.archive.reconcile(replayed.chunk_state)
        history = replayed.history
        if not history or history[0].role != "system":
            session.close()
            raise SessionError(f"session {session_id} has no conversation to resume")
        for call in unanswered_calls(history):
            answer = tool_result(call, INTERRUPTED_TOOL_RESULT, is_error=True, interrupted=True)
            session.highest_id = max(session.highest_id, last_id_number(history)) + 1
            answer.id = f"m{session.highest_id}"
            history.append(answer)
            session.message(answer)
            notes.append(f"tool call {call.name} ({call.id}) had no result: marked interrupted")
        return session, history, notes

    # -- agent.turn.loop.Recorder ----------------------------------------------------------------

    def message(self, message: Message) -> None:
        self.highest_id = max(self.highest_id, last_id_number([message]))
        self.journal.message(message)

    def compaction(self, chunk: int, merged: bool, history: list[Message]) -> None:
        """Record a fold: the chunk it wrote (or merged into) and the history that replaced the
        folded one."""
        self.highest_id = max(self.highest_id, last_id_number(history))
        chunks = self.archive.chunks()
        state = next((c.state() for c in chunks if c.number == chunk), {})
        self.journal.compaction(chunk=chunk, merged=merged, chunk_state=state, history=history)

    def record(self, record: dict[str, Any]) -> None:
        """Journal a record of another kind: a turn, a checkpoint, a rewind (sessions/lineage.py
        builds them)."""
        self.journal.append(record)

    def usage(self, model: str, usage: Usage, purpose: CallPurpose = "turn") -> None:
        fields = {k: v for k, v in usage.__dict__.items() if v}
        self.journal.usage(model, purpose=purpose, **fields)

    async def sync(self) -> str | None:
        return await self.journal.sync()

    def close(self) -> None:
        self.journal.close()
        self.lock.release()

    @property
    def fork_depth(self) -> int:
        return int(self.header.get("fork_depth", 0))


@dataclass
class SessionInfo:
    """One line of `pleat sessions`."""

    id: str
    workspace: str
    started: str
    last_active: float
    messages: int
    chunks: int
    first_request: str
    parent: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    kind: SessionKind | None = None  # "subagent": a sub-agent's session, under `parent`
    # Why the session cannot be opened (its journal is missing, unreadable or has no valid
    # header), or None: a damaged session is listed with the reason, never hides the others.
    damaged: str | None = None
    name: str | None = None  # given with /rename (sessions/session_name.py)
    turns: int = 0  # requests the user typed (injected messages are not counted)
    size: int = 0  # bytes of the journal
    prompts: str = ""  # the typed prompts, bounded (PROMPTS_CHARS), for the picker's filter

    @property
    def title(self) -> str:
        """What the resume picker calls it: its name, else its first request."""
        return self.name or self.first_request


def _damaged(directory: Path, reason: str, last_active: float = 0.0) -> SessionInfo:
    return SessionInfo(directory.name, "?", "?", last_active, 0, 0, "", damaged=reason)


def session_info(directory: Path) -> SessionInfo:
    """Read a session's header and count its records (without replaying it). A session whose
    journal cannot be read, or whose first line is not a session header, comes back damaged."""
    journal = directory / JOURNAL_NAME
    summary = JournalSummary()
    try:
        stat = journal.stat()
        if not journal.is_file():
            return _damaged(directory, "its journal is not a file", stat.st_mtime)
        with journal.open("r", encoding="utf-8", errors="replace") as lines:
            for line in lines:
                summary.feed(line)
                if summary.damaged is not None:
                    return _damaged(directory, summary.damaged, stat.st_mtime)
    except OSError as error:
        return _damaged(directory, f"its journal cannot be read ({error.strerror or error})")
    chunks = len(list((directory / CHUNKS_DIR).glob("chunk-*.md")))
    return summary_info(directory.name, summary, stat.st_mtime, stat.st_size, chunks)


def summary_info(
    session_id: str, summary: JournalSummary, last_active: float, size: int, chunks: int
) -> SessionInfo:
    """The list line of a session whose journal's lines `summary` counted."""
    header = summary.header
    if summary.damaged is not None:
        return SessionInfo(session_id, "?", "?", last_active, 0, 0, "", damaged=summary.damaged)
    if header is None:
        reason = "its journal is empty"
        return SessionInfo(session_id, "?", "?", last_active, 0, 0, "", damaged=reason)
    parent = header.get("parent")
    kind: SessionKind | None = SUBAGENT if header.get("kind") == SUBAGENT else None
    return SessionInfo(
        id=session_id,
        workspace=str(header.get("workspace", "?")),
        started=str(header.get("time", "?")),
        last_active=last_active,
        messages=summary.messages,
        chunks=chunks,
        first_request=summary.first_request,
        parent=parent if isinstance(parent, str) else None,
        kind=kind,
        name=summary.name,
        turns=summary.turns,
        size=size,
        prompts=summary.prompts_text,
    )


def list_sessions(workspace: Path | None = None) -> list[SessionInfo]:
    """Sessions newest first (by last activity), optionally only those of one workspace (a
    damaged session, whose workspace cannot be known, is listed with every workspace's)."""
    root = data_home() / "sessions"
    try:
        directories = [p for p in root.iterdir() if p.is_dir() and is_session_id(p.name)]
    except OSError:
        return []
    found = [session_info(d) for d in directories]
    if workspace is not None:
        found = [s for s in found if same_workspace(s.workspace, workspace) or s.damaged]
    return sorted(found, key=lambda s: s.last_active, reverse=True)


def children_under_parents(sessions: list[SessionInfo]) -> list[SessionInfo]:
    """The same sessions, each sub-agent's right under its parent (in their order); one whose
    parent is not listed keeps its place."""
    listed = {s.id for s in sessions}
    children: dict[str, list[SessionInfo]] = {}
    for s in sessions:
        if s.kind == SUBAGENT and s.parent in listed:
            children.setdefault(s.parent, []).append(s)
    ordered: list[SessionInfo] = []
    for s in sessions:
        if not (s.kind == SUBAGENT and s.parent in listed):
            ordered += [s, *children.get(s.id, [])]
    return ordered


def format_sessions(sessions: list[SessionInfo]) -> str:
    if not sessions:
        return "no sessions yet"
    rows = [("id", "workspace", "started", "last active", "msgs", "chunks", "first request")]
    listed = {s.id for s in sessions}
    for s in children_under_parents(sessions):
        if s.damaged:
            rows.append((s.id, "?", "?", "?", "-", "-", f"[damaged: {s.damaged}]"))
            continue
        last = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.last_active))
        sub = s.kind == SUBAGENT
        # Under its parent, a sub-agent's row says what it is; elsewhere, whose it is too.
        child = f"[sub-agent] {s.first_request}"
        if s.parent not in listed:
            child = f"[sub-agent of {s.parent}] {s.first_request}"
        rows.append(
            (
                CHILD_MARK + s.id if sub else s.id,
                s.workspace,
                s.started[:16].replace("T", " "),
                last,
                str(s.messages),
                str(s.chunks),
                child if sub else s.first_request,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True))
        + "  "
        + row[-1]
        for row in rows
    )


def latest_session(workspace: Path) -> str | None:
    """This workspace's most recently active session that is not damaged and is the user's
    own (a sub-agent's is not)."""
    found = [s for s in list_sessions(workspace) if not s.damaged and s.kind is None]
    return found[0].id if found else None
