"""What a rewind to a user turn would do: the conversation before it, and the files to put back.

Read from the journal (sessions/lineage.py): the turns of the live conversation, folded ones
included, and the checkpoints no rewind has taken back. Files: every change pleat made from the
turn on goes back to its state before the turn's first change; a file whose bytes are no longer
what pleat left there was changed by someone else since, and is a conflict for the front end
to ask about (the TUI) or keep (headless). What cannot be undone is refused in one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sessions.checkpoint_store import CheckpointStore, content_ref, is_store_ref
from sessions.journal import Replayed, replay_journal
from sessions.lineage import Checkpoint, FileChange, Scope, Turn
from sessions.messages import Message, is_summary
from tools.base import ToolError
from tools.file_restore import Current, current
from tools.git_snapshots import (
    EXECUTABLE,
    MAX_SNAPSHOT_FILE_BYTES,
    REGULAR,
    GitSnapshotError,
    GitSnapshots,
    blob_id,
)
from tools.registry import ToolRegistry

# Characters of a turn's first line shown in lists and messages.
TURN_LINE_CHARS = 72


class RewindRefused(Exception):
    """A rewind that cannot be done: one line saying why (nothing changed)."""


@dataclass(frozen=True)
class Restore:
    """One file to put back: its old content (None: it did not exist), its git mode, and
    whether what is there now is what pleat left (False: changed since, a conflict)."""

    path: str
    target: str | None
    mode: str | None
    conflict: bool
    made_dir: str | None = None  # removed with the file when pleat's write created it


@dataclass
class RewindPlan:
    """A rewind worked out, nothing changed yet."""

    turn: Turn
    number: int  # 1 = the conversation's first turn
    scope: Scope
    history: list[Message] | None = None  # the conversation before the turn (with it in scope)
    restores: list[Restore] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the files part does not cover

    @property
    def conflicts(self) -> list[str]:
        return [r.path for r in self.restores if r.conflict]

    @property
    def files(self) -> bool:
        return self.scope in ("files", "both")

    @property
    def conversation(self) -> bool:
        return self.scope in ("conversation", "both")


def first_line(text: str) -> str:
    """A prompt's first non-empty line, cut to TURN_LINE_CHARS."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= TURN_LINE_CHARS else line[: TURN_LINE_CHARS - 1] + "…"


def turn_label(number: int, turn: Turn) -> str:
    """`3. 2026-05-01 14:02  fix the failing test` (the time when it was recorded)."""
    when = turn.time[:16].replace("T", " ") if turn.time else "(no time)"
    return f"{number}. {when}  {first_line(turn.prompt)}"


def plan_rewind(
    journal: Path,
    live: list[Message],
    number: int | None,
    scope: Scope,
    *,
    workspace: Path,
    store: CheckpointStore,
    git: GitSnapshots | None,
    registry: ToolRegistry,
    extra_roots: tuple[Path, ...] = (),
) -> RewindPlan:
    """The rewind to turn `number` (None: the last one, /undo). Raises RewindRefused. Blocking
    (reads the journal and the workspace): call it in a worker thread."""
    replayed = replay_journal(journal)
    turns = replayed.lineage.turns
    if not turns:
        parent = replayed.header.get("parent")
        forked = (
            f" (it was forked from session {parent}: undo its requests there, "
            f"pleat --resume {parent})"
            if isinstance(parent, str)
            else ""
        )
        raise RewindRefused(f"nothing to undo: this conversation has no request yet{forked}")
    if number is None:
        number = len(turns)
    if not 1 <= number <= len(turns):
        raise RewindRefused(f"there is no turn {number}: this conversation has {len(turns)}")
    turn = turns[number - 1]
    plan = RewindPlan(turn, number, scope)
    if plan.conversation:
        plan.history = history_before(journal, live, turn)
    if plan.files:
        _plan_files(plan, replayed, workspace, store, git, registry, extra_roots)
    return plan


def history_before(journal: Path, live: list[Message], turn: Turn) -> list[Message]:
    """The conversation as it was just before the turn's request: cut from the live history
    when nothing folded since the turn, else rebuilt by replaying the journal up to that
    request. A fold after the turn began (one that kept it in its tail, or folded it) wrote a
    summary with the turn in view, which must not outlive the turn's undoing; the journal
    knows which summary came before the turn and which after (so any summary means a replay)."""
    ids = [m.id for m in live]
    if turn.id in ids and not any(map(is_summary, live[: ids.index(turn.id)])):
        history = live[: ids.index(turn.id)]
    else:
        history = replay_journal(journal, stop_before=turn.id).history
    if not history or history[0].role != "system":
        raise RewindRefused("the conversation before that turn cannot be rebuilt from the journal")
    return history


def _plan_files(
    plan: RewindPlan,
    replayed: Replayed,
    workspace: Path,
    store: CheckpointStore,
    git: GitSnapshots | None,
    registry: ToolRegistry,
    extra_roots: tuple[Path, ...],
) -> None:
    turn, lineage = plan.turn, replayed.lineage
    damaged = [line for line in lineage.damaged_lines if line > turn.line]
    if damaged:
        raise RewindRefused(
            f"line {damaged[0]} of the journal is damaged: the file changes since turn "
            f"{plan.number} are not known, so they cannot be undone (the conversation can: "
            "rewind it alone)"
        )
    # A request with no `turn` record before any that has one was made by a pleat that kept
    # no checkpoints (one after such a record is a prompt delivered within a turn).
    kept_since = False
    for later, other in enumerate(lineage.turns, 1):
        kept_since = kept_since or other.marked
        changing = [t for t in other.tools if not getattr(registry.get(t), "read_only", False)]
        if later >= plan.number and not kept_since and changing:
            raise RewindRefused(
                f"turn {later} was recorded before pleat kept checkpoints: its file changes "
                "cannot be undone (the conversation can: rewind it alone)"
            )
    points = [p for p in lineage.checkpoints if p.line > turn.line]
    plan.notes += _uncovered(points)
    first: dict[str, FileChange] = {}
    last: dict[str, FileChange] = {}
    edited_between: set[str] = set()  # changed by someone else between two of pleat's changes
    for point in points:
        for change in point.files:
            previous = last.get(change.path)
            if previous is not None and previous.after_known:
                if same_content(previous.after, change.before, git) is False:
                    edited_between.add(change.path)
            first.setdefault(change.path, change)
            last[change.path] = change
    _check_kept(first.values(), store, git, plan.number)
    for path, earliest in first.items():
        if earliest.withheld:
            plan.notes.append(
                f"{path}: its old content held a key, which pleat never writes to disk; "
                "not restored"
            )
            continue
        try:
            now_there = current(workspace, path, extra_roots)
        except ToolError as error:
            plan.notes.append(f"{error}; not restored")
            continue
        if matches(now_there, earliest.before, earliest.mode):
            continue  # already as it was
        latest = last[path]
        conflict = path in edited_between or (
            latest.after_known and not matches(now_there, latest.after)
        )
        if now_there.kind == "dir" and latest.after_known and latest.after is None:
            # pleat removed the file and a directory stands there now (a command's `rm f &&
            # mkdir f`): not a conflict; the undo removes the files pleat made in it first, and
            # the directory goes only when nothing else is left in it.
            conflict = path in edited_between
        restore = Restore(path, earliest.before, earliest.mode, conflict, earliest.made_dir)
        plan.restores.append(restore)


# Said whenever an undo covers a command's changes through git snapshots: what they cannot see.
GIT_BLIND_SPOTS = (
    f"commands: files git ignores, files over {MAX_SNAPSHOT_FILE_BYTES // 2**20} MiB and files "
    "holding a key pleat knows are not in the snapshots, so what a command did to them is not "
    "undone"
)


def _uncovered(points: list[Checkpoint]) -> list[str]:
    """One note per reason some calls' changes are not known (commands outside git ...)."""
    reasons: dict[str, int] = {}
    for point in points:
        why = point.uncovered
        if why is None and point.snapshot is not None and not point.done:
            why = "pleat stopped before the command's changes were recorded"
        if why is not None:
            reasons[f"{point.tool}: {why}"] = reasons.get(f"{point.tool}: {why}", 0) + 1
    notes = [
        f"{reason} ({count} call{'s' if count > 1 else ''} not undone)"
        for reason, count in reasons.items()
    ]
    if any(point.snapshot is not None for point in points):
        notes.append(GIT_BLIND_SPOTS)
    return notes


def _check_kept(
    changes: Iterable[FileChange], store: CheckpointStore, git: GitSnapshots | None, number: int
) -> None:
    """Refuse when an old content to put back is gone (the store's file, or git's object)."""
    wanted = [c.before for c in changes if c.before]
    missing = [ref for ref in wanted if is_store_ref(ref) and not store.has(ref)]
    blobs = [ref[4:] for ref in wanted if ref.startswith("git:")]
    if blobs:
        try:
            if git is None or git.available() is not None:
                raise GitSnapshotError("git is not available here")
            missing += [f"git:{blob}" for blob in git.missing(blobs)]
        except GitSnapshotError as error:
            raise RewindRefused(
                f"the checkpoints of turn {number} and after are in git, which cannot read them "
                f"({error})"
            ) from None
    if missing:
        raise RewindRefused(
            f"the checkpoints of turn {number} and after are missing ({missing[0][:19]}… is "
            "gone): their file changes cannot be undone (the conversation can: rewind it alone)"
        )


def same_content(left: str | None, right: str | None, git: GitSnapshots | None) -> bool | None:
    """Whether two kept-content names name the same bytes (None: a missing file), or None when
    that cannot be told: a store name is a hash of the bytes, a git name a blob id, so a store
    name and a git name are compared by reading the blob back."""
    if left is None or right is None:
        return left is None and right is None
    if is_store_ref(left) == is_store_ref(right):
        return left == right
    store_ref, git_ref = (left, right) if is_store_ref(left) else (right, left)
    if git is None or not git_ref.startswith("git:"):
        return None
    try:
        return content_ref(git.read(git_ref[4:])) == store_ref
    except GitSnapshotError:
        return None


def matches(now_there: Current, ref: str | None, mode: str | None = None) -> bool:
    """Whether what is at a path now is the content `ref` names (None: no file), and, given a
    git `mode`, whether a file is executable as that mode says."""
    if mode in (REGULAR, EXECUTABLE) and now_there.kind == "file":
        if now_there.executable != (mode == EXECUTABLE):
            return False
    if ref is None:
        return now_there.kind == "missing"
    if now_there.kind not in ("file", "link"):
        return False
    if is_store_ref(ref):
        return now_there.kind == "file" and content_ref(now_there.data) == ref
    blob = ref.removeprefix("git:")
    return blob_id(now_there.data, len(blob)) == blob
