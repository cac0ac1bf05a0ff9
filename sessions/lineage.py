"""The journal records of checkpoints and rewinds, and what a replay learns from them.

Four record kinds, written by agent/turn/checkpoints.py and agent/conversation/rewind.py:

- `turn`: a user turn starts (`message`: the id of its user message, `time`);
- `checkpoint`: before a tool that changes files runs: the turn, the call, the tool, and per
  file the kept old content (`before`: a store or git blob name, null when the file did not
  exist); for a command, the git snapshot before it, or why changes by commands are not covered;
- `checkpoint_done`: after it ran: per file `before`, `after` (what pleat left there, to notice
  a later change by the user) and the git mode;
- `rewind`: files, conversation or both went back to before a user turn (`to`); with the
  conversation, the `history` that replaces the live one, as a compaction's does.

Every record is checked on replay like the others: a damaged one is skipped and reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from sessions.messages import Message, typed_text

# What a rewind takes back: the files pleat changed, the conversation, or both.
Scope = Literal["files", "conversation", "both"]
SCOPES: tuple[Scope, ...] = ("files", "conversation", "both")
# A kept content's name: pleat's store (sessions/checkpoint_store.py) or a git blob (SHA-1 or
# SHA-256 repositories).
CONTENT_REF = re.compile(r"(sha256:[0-9a-f]{64}|git:[0-9a-f]{40}|git:[0-9a-f]{64})\Z")
# Git tree modes a restored file may get: plain, executable, symbolic link.
FILE_MODES = frozenset({"100644", "100755", "120000"})
# A git commit id (a command's snapshot).
COMMIT_ID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?\Z")
# The longest path accepted in a record: PATH_MAX.
MAX_PATH_CHARS = 4096


class DamagedRecord(ValueError):
    """A checkpoint or rewind record this version could not have written."""


@dataclass(frozen=True)
class FileChange:
    """One file a tool call changed: what to put back, and what pleat left there."""

    path: str  # workspace-relative, posix
    before: str | None  # kept content name; None: the file did not exist
    after: str | None = None  # what pleat left; None: it removed the file
    after_known: bool = False  # False while the tool has not finished (or never did)
    mode: str | None = None  # the git mode of `before`, for a file a command changed
    withheld: bool = False  # the old content was not kept (it held a key)
    made_dir: str | None = None  # the topmost directory the write created, for a new file

    def record(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"path": self.path, "before": self.before}
        if self.after_known:
            fields["after"] = self.after
        if self.mode is not None:
            fields["mode"] = self.mode
        if self.withheld:
            fields["withheld"] = True
        if self.made_dir is not None:
            fields["made_dir"] = self.made_dir
        return fields


@dataclass
class Checkpoint:
    """What one tool call changed (or may have changed), in journal order."""

    line: int
    turn: str
    call: str
    tool: str
    files: list[FileChange]
    snapshot: str | None = None  # a command's git snapshot before it ran
    uncovered: str | None = None  # why a command's changes are not known
    done: bool = False


@dataclass
class Turn:
    """A user turn of the live conversation (folded or not)."""

    id: str
    prompt: str
    line: int
    time: str | None = None
    marked: bool = False  # a `turn` record: pleat kept checkpoints during it
    tools: set[str] = field(default_factory=set)  # the tools its replies called


def is_turn(message: Message) -> bool:
    """A request the user typed (not a summary, an injected instruction or a placeholder)."""
    return message.role == "user" and not message.meta.get("injected") and message.id != ""


# -- records ----------------------------------------------------------------------------------


def turn_record(message_id: str, time: str) -> dict[str, Any]:
    return {"type": "turn", "time": time, "message": message_id}


def checkpoint_record(point: Checkpoint, time: str) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "checkpoint",
        "time": time,
        "turn": point.turn,
        "call": point.call,
        "tool": point.tool,
        "files": [change.record() for change in point.files],
    }
    if point.snapshot is not None:
        record["snapshot"] = point.snapshot
    if point.uncovered is not None:
        record["uncovered"] = point.uncovered
    return record


def done_record(point: Checkpoint, time: str) -> dict[str, Any]:
    record = checkpoint_record(point, time)
    record["type"] = "checkpoint_done"
    return record


def rewind_record(
    to: str,
    scope: Scope,
    prompt: str,
    time: str,
    files: dict[str, list[str]],
    history: list[Message] | None,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "rewind",
        "time": time,
        "to": to,
        "scope": scope,
        "prompt": prompt,
        **files,
    }
    if history is not None:
        record["history"] = [m.to_record() for m in history]
    return record


# -- checks -----------------------------------------------------------------------------------


def _require(ok: bool, what: str) -> None:
    if not ok:
        raise DamagedRecord(what)


def _text(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    _require(isinstance(value, str) and bool(value), key)
    assert isinstance(value, str)
    return value


def plain_path(path: Any) -> bool:
    """A posix path with no `..`, no `.`, no empty part, no NUL: relative to the workspace, or
    absolute (a file of a directory the user added, which an undo reaches only through that
    directory added again: tools/file_restore.py in_root)."""
    if not isinstance(path, str) or not path or len(path) > MAX_PATH_CHARS or "\0" in path:
        return False
    body = path.removeprefix("/")
    return all(p not in ("", ".", "..") for p in body.split("/"))


def _ref(value: Any, what: str) -> str | None:
    _require(value is None or (isinstance(value, str) and bool(CONTENT_REF.match(value))), what)
    return value  # type: ignore[no-any-return]


def _change(value: Any) -> FileChange:
    _require(isinstance(value, dict), "a checkpoint file that is not an object")
    path = value.get("path")
    _require(plain_path(path), "checkpoint path")
    mode = value.get("mode")
    _require(mode is None or mode in FILE_MODES, "checkpoint mode")
    withheld = value.get("withheld", False)
    _require(isinstance(withheld, bool), "checkpoint withheld")
    made_dir = value.get("made_dir")
    _require(made_dir is None or (plain_path(made_dir) and path.startswith(made_dir + "/")), "dir")
    return FileChange(
        path=path,
        before=_ref(value.get("before"), "checkpoint before"),
        after=_ref(value.get("after"), "checkpoint after"),
        after_known="after" in value,
        mode=mode,
        withheld=withheld,
        made_dir=made_dir,
    )


def _checkpoint(record: dict[str, Any], line: int) -> Checkpoint:
    files = record.get("files")
    _require(isinstance(files, list), "checkpoint files")
    assert isinstance(files, list)
    snapshot = record.get("snapshot")
    commit = isinstance(snapshot, str) and bool(COMMIT_ID.match(snapshot))
    _require(snapshot is None or commit, "snapshot")
    uncovered = record.get("uncovered")
    _require(uncovered is None or isinstance(uncovered, str), "uncovered")
    return Checkpoint(
        line=line,
        turn=_text(record, "turn"),
        call=_text(record, "call"),
        tool=_text(record, "tool"),
        files=[_change(change) for change in files],
        snapshot=snapshot,
        uncovered=uncovered,
    )


# -- replay -----------------------------------------------------------------------------------


@dataclass
class Lineage:
    """What a replay of the journal knows about turns and checkpoints: the user turns of the
    live conversation (folded ones included), the checkpoints no rewind has taken back, the
    damaged lines, and the highest message number ever used (ids are never reused)."""

    turns: list[Turn] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    damaged_lines: list[int] = field(default_factory=list)
    highest_id: int = 0
    # The journal line of every user message, by id: where a rewind to it cuts.
    message_lines: dict[str, int] = field(default_factory=dict)

    def seen(self, messages: list[Message]) -> None:
        """Messages of any record (a compaction's summary has an id no message record has)."""
        for message in messages:
            if message.id[:1] == "m" and message.id[1:].isdigit():
                self.highest_id = max(self.highest_id, int(message.id[1:]))

    def message(self, message: Message, line: int) -> None:
        self.seen([message])
        if is_turn(message):
            self.message_lines[message.id] = line
            self.turns.append(Turn(message.id, typed_text(message), line))
        elif message.role == "assistant" and self.turns:
            self.turns[-1].tools.update(call.name for call in message.tool_calls)

    def apply(self, kind: str, record: dict[str, Any], line: int) -> None:
        """A `turn`, `checkpoint` or `checkpoint_done` record (checked first)."""
        if kind == "turn":
            message = _text(record, "message")
            when = record.get("time")
            turn = next((t for t in reversed(self.turns) if t.id == message), None)
            _require(turn is not None, "a turn record for no known request")
            assert turn is not None
            turn.marked, turn.time = True, when if isinstance(when, str) else None
        elif kind == "checkpoint":
            self.checkpoints.append(_checkpoint(record, line))
        elif kind == "checkpoint_done":
            finished = _checkpoint(record, line)
            for point in reversed(self.checkpoints):
                if point.call == finished.call and not point.done:
                    point.files, point.done = finished.files, True
                    point.snapshot = point.snapshot or finished.snapshot
                    point.uncovered = finished.uncovered
                    return
            # A finished call whose `checkpoint` line was damaged: its record says it all.
            finished.done = True
            self.checkpoints.append(finished)

    def rewind(self, record: dict[str, Any]) -> None:
        """A `rewind` record (checked first): the checkpoints after the turn are taken back
        with the files, the turns from it on leave with the conversation."""
        to = _text(record, "to")
        scope = record.get("scope")
        _require(scope in SCOPES, "rewind scope")
        start = self.message_lines.get(to)
        _require(start is not None, "a rewind to no known request")
        assert start is not None
        if scope in ("conversation", "both"):
            index = next((i for i, t in enumerate(self.turns) if t.id == to), None)
            _require(index is not None, "a rewind to a request no longer in the conversation")
            self.turns = self.turns[:index]
        if scope in ("files", "both"):
            self.checkpoints = [p for p in self.checkpoints if p.line < start]

    def damaged(self, line: int) -> None:
        self.damaged_lines.append(line)
