"""Checkpoints: before a tool changes files, what it is about to change is kept, for /undo.

The agent calls `start_turn` when a user turn begins and `around` for every approved call of a
tool that is not read-only. For a tool that names the files it writes (write_file, edit_file),
their old bytes go to the session's store and, once it ran, the hash of what it left there
(so a later change by the user is noticed). For any other (a command), in a git workspace, the
files are snapshotted before and after (tools/git_snapshots.py) and the difference recorded;
outside git the record says the changes are not covered. Bookkeeping never stops a tool: a
failure is recorded as "not covered" and the tool runs.

A bracket records what changed between its "before" and its "after", whoever changed it, so two
brackets must never overlap: sub-agents working side by side (agent/subagents/team.py) share one
gate (an asyncio.Lock), and every call that may change files holds it from its "before" to its
"after"; a call that writes nothing (web_fetch) does not wait. The cost: the commands and file
writes of parallel sub-agents run one at a time (their model calls, reads and searches still
overlap), so a sub-agent's long command (a test suite) holds back the other sub-agents' next
change until it ends. Undo could instead try to untangle overlapping brackets, but a command's
snapshots cannot tell whose change a file is, so attributing it would be a guess.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessions.checkpoint_store import CheckpointStore, content_ref
from sessions.journal import now
from sessions.lineage import Checkpoint, FileChange, checkpoint_record, done_record, turn_record
from sessions.messages import Message, ToolCall
from sessions.redact import KnownSecrets
from tools.base import Tool, ToolError, ToolOutput
from tools.file_changes import load_existing
from tools.file_restore import current
from tools.git_snapshots import REF_PREFIX, GitSnapshotError, GitSnapshots, Snapshot, changes
from tools.paths import display_path, resolve_in_roots, workspace_root

# Bytes read at a time when a file is searched for a key before its snapshot, and kept from the
# end of one piece to the next so that a key across the boundary is found (keys are well under
# this: provider keys run to about 200 characters).
SCAN_PIECE_BYTES = 1024 * 1024
SCAN_OVERLAP_BYTES = 4096

# What an undo says of a command it could not take back outside a git repository.
OUTSIDE_GIT = "changes made by commands are only known in a git workspace"

Record = Callable[[dict[str, Any]], None]


def checkpoint_ref(session_id: str) -> str:
    """The private git ref holding a session's snapshots (a ref name git accepts)."""
    return REF_PREFIX + re.sub(r"[^A-Za-z0-9_-]", "-", session_id)


@dataclass
class CheckpointRecorder:
    """Keeps what each side-effecting tool call is about to change, for one session."""

    workspace: Path
    store: CheckpointStore
    record: Record  # appends a journal record (sessions.store.Session.record)
    git: GitSnapshots | None = None
    secrets: KnownSecrets = field(default_factory=KnownSecrets)
    turn: str | None = None  # the user message that started the running turn
    # Held by a call that may change files from its "before" to its "after" (see the module);
    # one for a session, its sub-agents' recorders included.
    gate: asyncio.Lock = field(default_factory=asyncio.Lock)
    # The directories the user added (tools/base.py extra_roots): a file written there is kept
    # like a workspace file, under its absolute path (/add-dir widens it for the session).
    extra_roots: tuple[Path, ...] = ()
    # A command's snapshot before it ran, by call id, until the one after it is taken.
    _snapshots: dict[str, Snapshot] = field(default_factory=dict, init=False)

    def start_turn(self, message: Message) -> None:
        self.turn = message.id
        self.record(turn_record(message.id, now()))

    def knows_turn(self, message_id: str) -> bool:
        """Whether `message_id` opened the turn running now (journaled: a rewind may name it)."""
        return self.turn == message_id

    def for_subagent(self, prefix: str) -> CheckpointRecorder:
        """The recorder of a sub-agent working in this turn (agent/subagents/team.py): its changes
        are kept in this session's journal and store as part of the running turn, so undoing
        the turn undoes them too; its call ids get `prefix` (two sub-agents may use the same)."""
        return SubagentCheckpoints(
            self.workspace,
            self.store,
            self.record,
            self.git,
            self.secrets,
            self.turn,
            self.gate,
            self.extra_roots,
            prefix=prefix,
        )

    async def around(
        self,
        call: ToolCall,
        tool: Tool,
        args: dict[str, Any],
        run: Callable[[], Awaitable[ToolOutput]],
    ) -> ToolOutput:
        """Run an approved tool call, keeping what it changes: before it, the old state is
        recorded; after it (also when it is interrupted), what it left. A call that may change
        files waits for the gate and holds it until its "after" is recorded."""
        held = _may_change_files(tool, args)
        if held:
            await self.gate.acquire()
        try:
            try:
                point = await asyncio.to_thread(self._before, call, tool, args)
            except Exception as error:  # a bug here must not stop the tool: said in the record
                point = Checkpoint(0, self.turn or "", call.id, tool.name, [])
                point.uncovered = f"checkpoint failed: {type(error).__name__}: {error}"
            self.record(checkpoint_record(point, now()))
            try:
                return await run()
            finally:
                # Shielded: Esc during a long command still records what the command changed;
                # the gate opens once that is done, even if this call is cancelled meanwhile.
                finishing = asyncio.ensure_future(self._finish(point))
                if held:
                    finishing.add_done_callback(lambda _: self.gate.release())
                    held = False
                await asyncio.shield(finishing)
        finally:
            if held:
                self.gate.release()

    async def _finish(self, point: Checkpoint) -> None:
        try:
            finished = await asyncio.to_thread(self._after, point)
        except Exception as error:  # as in around(): recorded, never raised
            point.files, point.done = [], True
            point.uncovered = f"checkpoint failed: {type(error).__name__}: {error}"
            finished = point
        self.record(done_record(finished, now()))

    # -- before and after (in a worker thread) --------------------------------------------

    def _before(self, call: ToolCall, tool: Tool, args: dict[str, Any]) -> Checkpoint:
        point = Checkpoint(0, self.turn or "", call.id, tool.name, [])
        paths = tool.writes(args)
        if paths is not None:
            point.files = [c for raw in paths if (c := self._keep(raw)) is not None]
            return point
        if self.git is None or self.git.available() is not None:
            point.uncovered = OUTSIDE_GIT
            return point
        try:
            snapshot = self.git.take()
        except GitSnapshotError as error:
            point.uncovered = str(error)
            return point
        self._snapshots[call.id] = snapshot
        point.snapshot = snapshot.commit
        return point

    def _keep(self, raw: str) -> FileChange | None:
        """The old state of one file a tool is about to write; None when the tool will refuse
        the path anyway (outside the workspace, a directory, too big: nothing changes)."""
        try:
            path, root = resolve_in_roots(self.workspace, raw, self.extra_roots)
            rel = display_path(self.workspace, path)
            data = load_existing(root, path, rel)
        except ToolError:
            return None
        if data is None:
            made = _missing_ancestor(root, path.relative_to(root).as_posix())
            if made is not None and root != workspace_root(self.workspace):
                made = f"{root}/{made}"  # kept as the file's path is: absolute
            return FileChange(rel, None, made_dir=made)
        if self.secrets.found_in(data):  # keys never reach pleat's disk
            return FileChange(rel, None, withheld=True)
        try:
            return FileChange(rel, self.store.put(data))
        except OSError:
            return FileChange(rel, None, withheld=True)

    def _after(self, point: Checkpoint) -> Checkpoint:
        if point.snapshot is None:
            point.files = [self._left(change) for change in point.files]
        else:
            point.files = self._command_changes(point)
        point.done = True
        return point

    def _left(self, change: FileChange) -> FileChange:
        """The change with what the tool left at its path (the hash of its bytes)."""
        try:
            now_there = current(self.workspace, change.path, self.extra_roots)
        except ToolError:
            return change
        if now_there.kind == "missing":
            after = None
        elif now_there.kind == "file":
            after = content_ref(now_there.data)
        else:
            return change  # not a file pleat wrote: left unknown
        return dataclasses.replace(change, after=after, after_known=True)

    def _command_changes(self, point: Checkpoint) -> list[FileChange]:
        before = self._snapshots.pop(point.call, None)
        assert self.git is not None
        if before is None:
            point.uncovered = "the snapshot before the command was lost"
            return []
        try:
            after = self.git.take()
        except GitSnapshotError as error:
            point.uncovered = f"no snapshot after the command: {error}"
            return []
        existed = _directories(before)
        return [
            FileChange(
                change.path,
                None if change.before is None else f"git:{change.before.blob}",
                None if change.after is None else f"git:{change.after.blob}",
                True,
                None if change.before is None else change.before.mode,
                made_dir=None if change.before is not None else _made(change.path, existed),
            )
            for change in changes(before, after)
        ]


@dataclass
class SubagentCheckpoints(CheckpointRecorder):
    """A sub-agent's share of its parent's recorder: the parent's turn, journal, store and git
    snapshots; its own requests start no turn of their own."""

    prefix: str = ""

    def start_turn(self, message: Message) -> None:
        """The sub-agent's request is part of the parent's turn: nothing starts."""

    def knows_turn(self, message_id: str) -> bool:
        return False  # a sub-agent's request opens no turn of the session

    async def around(
        self,
        call: ToolCall,
        tool: Tool,
        args: dict[str, Any],
        run: Callable[[], Awaitable[ToolOutput]],
    ) -> ToolOutput:
        named = dataclasses.replace(call, id=self.prefix + call.id)
        return await super().around(named, tool, args, run)


def _may_change_files(tool: Tool, args: dict[str, Any]) -> bool:
    """Whether a call may change files: it names some, or cannot say (a command)."""
    try:
        return tool.writes(args) != ()
    except Exception:  # a tool that cannot say is taken to change anything
        return True


def _missing_ancestor(workspace: Path, rel: str) -> str | None:
    """The topmost directory of `rel`'s parents that does not exist yet (the write will make
    it, and an undo removes it again when empty), or None."""
    parts = rel.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        directory = "/".join(parts[:depth])
        if not (workspace / directory).is_dir():
            return directory
    return None


def _directories(snapshot: Snapshot) -> set[str]:
    """The directories holding a file of the snapshot (withheld ones too)."""
    found: set[str] = set()
    for path in [*snapshot.files, *snapshot.withheld]:
        parts = path.split("/")[:-1]
        found.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    return found


def _made(path: str, existed: set[str]) -> str | None:
    """The topmost directory above a file a command created that held no file git saw before
    it (taken as made by the command: an undo removes it only once empty, so one that was
    there empty is at worst removed empty, and one holding ignored files stays), or None."""
    parts = path.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        directory = "/".join(parts[:depth])
        if directory not in existed:
            return directory
    return None


def file_holds_secret(secrets: KnownSecrets) -> Callable[[Path], bool]:
    """Whether a file holds one of the keys (read in pieces; an unreadable file counts as
    holding one: it is not snapshotted)."""

    def holds(path: Path) -> bool:
        if not secrets:
            return False
        try:
            with path.open("rb") as stream:
                tail = b""
                while piece := stream.read(SCAN_PIECE_BYTES):
                    if secrets.found_in(tail + piece):
                        return True
                    tail = piece[-SCAN_OVERLAP_BYTES:]
        except OSError:
            return True
        return False

    return holds


def make_recorder(
    workspace: Path,
    session_id: str,
    store: CheckpointStore,
    record: Record,
    secrets: KnownSecrets,
    extra_roots: tuple[Path, ...] = (),
) -> CheckpointRecorder:
    """A recorder for one session (git is asked on the first command whether it covers the
    workspace); `extra_roots`: the directories the user added, whose files it keeps too."""
    git = GitSnapshots(
        workspace,
        checkpoint_ref(session_id),
        store.directory,
        holds_secret=file_holds_secret(secrets),
    )
    return CheckpointRecorder(workspace, store, record, git, secrets, extra_roots=extra_roots)
