"""Sessions on disk: create, resume (journal replay, archive reconciled, lock), list."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessions.archive import ChunkArchive
from sessions.journal import JOURNAL_NAME, Journal, replay_journal
from sessions.lock import SessionLock
from sessions.messages import Message, last_id_number, tool_result, unanswered_calls
from sessions.outputs import OUTPUTS_DIR, KeptOutputs
from sessions.paths import data_home, new_session_id, private_dir, session_dir
from sessions.usage import CallPurpose, Usage, UsageTally

CHUNKS_DIR = "chunks"
# What the model reads for a tool call whose process died before it answered.
INTERRUPTED_TOOL_RESULT = "interrupted: pleat stopped before this tool call finished"
# Forks of forks are refused past this depth: each carries a summary of a summary, and three
# generations is where the Rails seed found the lineage stops being useful.
MAX_FORK_DEPTH = 3
# Characters of the first request shown by `pleat sessions`.
FIRST_REQUEST_CHARS = 60


class SessionError(Exception):
    """A session that cannot be opened: one clear line."""


class Session:
    """One open session: its journal, its archive, its lock. Implements agent.loop.Recorder."""

    def __init__(self, session_id: str, header: dict[str, Any], *, fresh: bool) -> None:
        self.id = session_id
        self.directory = private_dir(session_dir(session_id))
        self.header = header
        self.lock = SessionLock(self.directory, session_id)
        self.lock.acquire()
        self.archive = ChunkArchive(self.directory / CHUNKS_DIR, session_id)
        self.outputs = KeptOutputs(self.directory / OUTPUTS_DIR)
        # The usage of every model call journaled before this run (a resumed session's bill).
        self.usage_so_far = UsageTally()
        self.journal = Journal(self.directory)
        if fresh:
            self.journal.header(**header)

    # -- opening ----------------------------------------------------------------------------

    @classmethod
    def create(
        cls, workspace: Path, *, model: str, parent: str | None = None, depth: int = 0
    ) -> Session:
        header: dict[str, Any] = {
            "id": new_session_id(),
            "workspace": str(workspace),
            "model": model,
        }
        if parent is not None:
            header |= {"parent": parent, "fork_depth": depth}
        return cls(header["id"], header, fresh=True)

    @classmethod
    def resume(cls, session_id: str) -> tuple[Session, list[Message], list[str]]:
        """Open a session where it stopped. Returns it, its live history, and notes on any
        repair made (a torn last line, unrecorded chunks, interrupted tool calls)."""
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
        notes = list(replayed.problems)
        notes += session.archive.reconcile(replayed.chunk_state)
        history = replayed.history
        if not history or history[0].role != "system":
            session.close()
            raise SessionError(f"session {session_id} has no conversation to resume")
        for call in unanswered_calls(history):
            answer = tool_result(call, INTERRUPTED_TOOL_RESULT, is_error=True, interrupted=True)
            answer.id = f"m{last_id_number(history) + 1}"
            history.append(answer)
            session.message(answer)
            notes.append(f"tool call {call.name} ({call.id}) had no result: marked interrupted")
        return session, history, notes

    # -- agent.loop.Recorder ----------------------------------------------------------------

    def message(self, message: Message) -> None:
        self.journal.message(message)

    def compaction(self, chunk: int, merged: bool, history: list[Message]) -> None:
        """Record a fold: the chunk it wrote (or merged into) and the history that replaced the
        folded one."""
        chunks = self.archive.chunks()
        state = next((c.state() for c in chunks if c.number == chunk), {})
        self.journal.compaction(chunk=chunk, merged=merged, chunk_state=state, history=history)

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


def session_info(directory: Path) -> SessionInfo | None:
    """Read a session's header and count its records (without replaying it)."""
    journal = directory / JOURNAL_NAME
    try:
        stat = journal.stat()
        with journal.open("r", encoding="utf-8", errors="replace") as lines:
            header: dict[str, Any] = {}
            messages = 0
            first = ""
            for line in lines:
                if not header:
                    try:
                        header = json.loads(line)
                    except json.JSONDecodeError:
                        return None
                    continue
                if line.startswith('{"type":"message"'):
                    messages += 1
                    if not first and '"role":"user"' in line:
                        try:
                            first = json.loads(line)["message"].get("content") or ""
                        except (json.JSONDecodeError, KeyError):
                            pass
    except OSError:
        return None
    chunks = len(list((directory / CHUNKS_DIR).glob("chunk-*.md")))
    return SessionInfo(
        id=directory.name,
        workspace=str(header.get("workspace", "?")),
        started=str(header.get("time", "?")),
        last_active=stat.st_mtime,
        messages=messages,
        chunks=chunks,
        first_request=" ".join(first.split())[:FIRST_REQUEST_CHARS],
        parent=header.get("parent"),
    )


def list_sessions(workspace: Path | None = None) -> list[SessionInfo]:
    """Sessions newest first (by last activity), optionally only those of one workspace."""
    root = data_home() / "sessions"
    try:
        directories = [p for p in root.iterdir() if p.is_dir()]
    except OSError:
        return []
    found = [info for d in directories if (info := session_info(d)) is not None]
    if workspace is not None:
        found = [s for s in found if s.workspace == str(workspace)]
    return sorted(found, key=lambda s: s.last_active, reverse=True)


def format_sessions(sessions: list[SessionInfo]) -> str:
    if not sessions:
        return "no sessions yet"
    rows = [("id", "workspace", "started", "last active", "msgs", "chunks", "first request")]
    for s in sessions:
        last = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.last_active))
        rows.append(
            (
                s.id,
                s.workspace,
                s.started[:16].replace("T", " "),
                last,
                str(s.messages),
                str(s.chunks),
                s.first_request,
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
    found = list_sessions(workspace)
    return found[0].id if found else None
