"""The checkpoint store, the journal's turn/checkpoint/rewind records on replay (damaged ones
skipped and reported), and putting files back without leaving the workspace."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agent.turn.checkpoints import CheckpointRecorder
from sessions.checkpoint_store import CheckpointMissing, CheckpointStore, content_ref
from sessions.journal import replay_journal
from sessions.lineage import Checkpoint, FileChange, checkpoint_record, done_record, turn_record
from sessions.messages import Message, ToolCall
from sessions.store import Session
from tools.base import ToolError, ToolOutput
from tools.file_restore import current, put_back
from tools.registry import default_registry

# -- the store --------------------------------------------------------------------------------


def test_the_store_keeps_bytes_by_their_hash_privately(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "checkpoints")
    data = b"caf\xe9\r\n\x00\xff"
    ref = store.put(data)
    assert ref == content_ref(data) and ref.startswith("sha256:")
    assert store.put(data) == ref and store.has(ref)
    assert store.get(ref) == data
    (blob,) = [p for p in (tmp_path / "checkpoints").rglob("*") if p.is_file()]
    assert stat.S_IMODE(blob.stat().st_mode) == 0o600
    for directory in (tmp_path / "checkpoints", blob.parent.parent, blob.parent):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_a_damaged_or_missing_blob_is_refused_never_returned(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path)
    ref = store.put(b"original")
    (blob,) = [p for p in tmp_path.rglob("*") if p.is_file()]
    blob.write_bytes(b"tampered")
    with pytest.raises(CheckpointMissing, match="damaged"):
        store.get(ref)
    blob.unlink()
    with pytest.raises(CheckpointMissing, match="cannot be read"):
        store.get(ref)
    assert not store.has(ref)
    for bad in ("sha256:../../etc/passwd", "git:abc", ""):
        assert not store.has(bad)
        with pytest.raises(CheckpointMissing, match="not a checkpoint name"):
            store.get(bad)


# -- replay -----------------------------------------------------------------------------------


def user(n: int, text: str) -> Message:
    return Message("user", text, id=f"m{n}")


def reply(n: int, text: str) -> Message:
    return Message("assistant", text, id=f"m{n}")


def journal_of(workspace: Path, extra: list[dict[str, Any] | str]) -> Path:
    """A session with two turns (m2, m4) and their checkpoints, then `extra` lines."""
    session = Session.create(workspace, model="m")
    session.message(Message("system", "you are pleat", id="m1"))
    for number, text in ((2, "first"), (4, "second")):
        session.message(user(number, text))
        session.record(turn_record(f"m{number}", "2026-01-01T10:00:00+0000"))
        point = Checkpoint(0, f"m{number}", f"call{number}", "write_file", [])
        point.files = [FileChange("a.txt", content_ref(text.encode()))]
        session.record(checkpoint_record(point, "t"))
        point.files = [FileChange("a.txt", content_ref(text.encode()), None, True)]
        session.record(done_record(point, "t"))
        session.message(reply(number + 1, f"did {text}"))
    for line in extra:
        if isinstance(line, str):
            session.journal.append({"type": "raw"})  # a placeholder, replaced below
        else:
            session.record(line)
    session.close()
    path = session.journal.path
    raw = [line for line in extra if isinstance(line, str)]
    if raw:  # damaged lines, written as they are
        text = path.read_text()
        for line in raw:
            text = text.replace('{"type":"raw"}', line, 1)
        path.write_text(text)
    return path


def rewind(to: str, scope: str, history: list[Message] | None) -> dict[str, Any]:
    record: dict[str, Any] = {"type": "rewind", "time": "t", "to": to, "scope": scope}
    record |= {"prompt": "x", "restored": [], "removed": [], "kept": []}
    if history is not None:
        record["history"] = [m.to_record() for m in history]
    return record


def test_replay_knows_the_turns_and_the_checkpoints(workspace: Path) -> None:
    replayed = replay_journal(journal_of(workspace, []))
    lineage = replayed.lineage
    assert [(t.id, t.prompt, t.marked) for t in lineage.turns] == [
        ("m2", "first", True),
        ("m4", "second", True),
    ]
    assert lineage.turns[0].time == "2026-01-01T10:00:00+0000"
    assert [(p.turn, p.done, p.files[0].after_known) for p in lineage.checkpoints] == [
        ("m2", True, True),
        ("m4", True, True),
    ]
    assert lineage.highest_id == 5 and not replayed.problems


def test_a_rewind_replaces_the_history_and_takes_back_the_later_checkpoints(
    workspace: Path,
) -> None:
    system = Message("system", "you are pleat", id="m1")
    path = journal_of(
        workspace,
        [rewind("m4", "both", [system, user(2, "first"), reply(3, "did first")])],
    )
    replayed = replay_journal(path)
    assert [m.id for m in replayed.history] == ["m1", "m2", "m3"]
    assert [t.id for t in replayed.lineage.turns] == ["m2"]
    assert [p.turn for p in replayed.lineage.checkpoints] == ["m2"]
    assert replayed.lineage.highest_id == 5  # ids past the rewound ones stay used


def test_files_and_conversation_rewind_apart(workspace: Path) -> None:
    system = Message("system", "you are pleat", id="m1")
    files_only = replay_journal(journal_of(workspace / "a", [rewind("m2", "files", None)]))
    assert [m.id for m in files_only.history] == ["m1", "m2", "m3", "m4", "m5"]
    assert len(files_only.lineage.turns) == 2 and not files_only.lineage.checkpoints
    talk = replay_journal(journal_of(workspace / "b", [rewind("m2", "conversation", [system])]))
    assert [m.id for m in talk.history] == ["m1"] and not talk.lineage.turns
    assert len(talk.lineage.checkpoints) == 2  # the files were not rewound


DAMAGED_RECORDS = {
    "unknown scope": rewind("m2", "everything", None),
    "files with a history": rewind("m2", "files", [Message("system", "s", id="m1")]),
    "conversation without one": rewind("m2", "conversation", None),
    "unknown request": rewind("m99", "both", [Message("system", "s", id="m1")]),
    "history without system": rewind("m2", "both", [user(2, "first")]),
    "path leaving the workspace": {
        "type": "checkpoint",
        "turn": "m4",
        "call": "c",
        "tool": "write_file",
        "files": [{"path": "../outside", "before": None}],
    },
    "absolute path": {
        "type": "checkpoint_done",
        "turn": "m4",
        "call": "c",
        "tool": "write_file",
        # Absolute is an added directory's file (reached by an undo only through that directory
        # added again: tools/file_restore.py in_root); one that climbs is damage.
        "files": [{"path": "/srv/shared/../../etc/passwd", "before": None, "after": None}],
    },
    "a content name that is no hash": {
        "type": "checkpoint",
        "turn": "m4",
        "call": "c",
        "tool": "write_file",
        "files": [{"path": "a", "before": "sha256:../x"}],
    },
    "a bad mode": {
        "type": "checkpoint_done",
        "turn": "m4",
        "call": "c",
        "tool": "run_command",
        "files": [{"path": "a", "before": None, "after": None, "mode": "040000"}],
    },
    "a turn for no request": {"type": "turn", "message": "m77", "time": "t"},
    "a made directory that is not the file's": {
        "type": "checkpoint",
        "turn": "m4",
        "call": "c",
        "tool": "write_file",
        "files": [{"path": "a/b.txt", "before": None, "made_dir": "elsewhere"}],
    },
}


@pytest.mark.parametrize("case", list(DAMAGED_RECORDS))
def test_a_damaged_record_is_skipped_and_reported(workspace: Path, case: str) -> None:
    replayed = replay_journal(journal_of(workspace, [DAMAGED_RECORDS[case]]))
    assert replayed.torn_lines == 1 and "is damaged and was skipped" in replayed.problems[0]
    assert [m.id for m in replayed.history] == ["m1", "m2", "m3", "m4", "m5"]
    assert len(replayed.lineage.turns) == 2 and len(replayed.lineage.checkpoints) == 2
    assert replayed.lineage.damaged_lines


def test_torn_lines_are_reported_with_their_number(workspace: Path) -> None:
    replayed = replay_journal(journal_of(workspace, ['{"type":"rewind","to":', "[1,2]"]))
    assert replayed.torn_lines == 2 and len(replayed.lineage.damaged_lines) == 2
    assert len(replayed.history) == 5


def test_replay_can_stop_just_before_a_request(workspace: Path) -> None:
    path = journal_of(workspace, [])
    assert [m.id for m in replay_journal(path, stop_before="m4").history] == ["m1", "m2", "m3"]
    assert [m.id for m in replay_journal(path, stop_before="m2").history] == ["m1"]


def test_a_resumed_session_continues_ids_after_the_highest_ever_used(workspace: Path) -> None:
    system = Message("system", "you are pleat", id="m1")
    path = journal_of(workspace, [rewind("m2", "both", [system])])
    session_id = path.parent.name
    session, history, _ = Session.resume(session_id)
    try:
        assert [m.id for m in history] == ["m1"] and session.highest_id == 5
    finally:
        session.close()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[-1]["type"] == "rewind"


# -- putting files back -----------------------------------------------------------------------


def test_put_back_restores_files_links_and_modes(workspace: Path) -> None:
    put_back(workspace, "deep/dir/f.bin", b"\x00\xff\r\n", None)
    assert (workspace / "deep" / "dir" / "f.bin").read_bytes() == b"\x00\xff\r\n"
    put_back(workspace, "run.sh", b"#!/bin/sh\n", "100755")
    assert os.access(workspace / "run.sh", os.X_OK)
    put_back(workspace, "link", b"run.sh", "120000")
    assert os.readlink(workspace / "link") == "run.sh"
    assert current(workspace, "link").kind == "link"
    put_back(workspace, "run.sh", None, None)
    assert not (workspace / "run.sh").exists() and current(workspace, "run.sh").kind == "missing"
    put_back(workspace, "never/was.txt", None, None)  # nothing there: nothing to do
    put_back(workspace, "deep/dir/f.bin", None, None, made_dir="deep")
    assert not (workspace / "deep").exists()  # made for the file: removed with it
    (workspace / "kept").mkdir()
    (workspace / "kept" / "other").write_text("x")
    put_back(workspace, "kept/new/f", b"f", None)
    put_back(workspace, "kept/new/f", None, None, made_dir="kept")
    assert not (workspace / "kept" / "new").exists() and (workspace / "kept" / "other").exists()


def test_put_back_never_leaves_the_workspace(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("safe")
    (workspace / "escape").symlink_to(outside)
    with pytest.raises(ToolError):
        put_back(workspace, "escape/victim", b"overwritten", None)
    with pytest.raises(ToolError):
        put_back(workspace, "escape/victim", None, None)
    assert (outside / "victim").read_text() == "safe"
    (workspace / "d" / "empty").mkdir(parents=True)
    (workspace / "d" / "f").write_text("not pleat's")
    with pytest.raises(ToolError, match="a directory holding other files is there"):
        put_back(workspace, "d", None, None)
    with pytest.raises(ToolError, match="a directory holding other files is there"):
        put_back(workspace, "d", b"old", None)
    assert (workspace / "d" / "f").read_text() == "not pleat's"
    (workspace / "d" / "f").unlink()  # only empty directories left: they make way
    put_back(workspace, "d", b"old", None)
    assert (workspace / "d").read_bytes() == b"old"


# -- brackets of sub-agents working side by side ----------------------------------------------


async def test_brackets_of_sub_agents_never_overlap_but_calls_that_write_nothing_do_not_wait(
    workspace: Path, tmp_path: Path
) -> None:
    """A bracket records whatever changed between its "before" and "after": the recorders of
    one session (the sub-agents' too) share a gate that keeps calls that may change files
    apart; web_fetch (it writes nothing) runs meanwhile."""
    records: list[dict[str, Any]] = []
    parent = CheckpointRecorder(workspace, CheckpointStore(tmp_path / "store"), records.append)
    first, second = parent.for_subagent("s1/"), parent.for_subagent("s2/")
    tools = default_registry()
    write, command, fetch = (tools.get(n) for n in ("write_file", "run_command", "web_fetch"))
    assert write is not None and command is not None and fetch is not None
    seen: list[str] = []
    fetched = asyncio.Event()

    def step(name: str, wait: asyncio.Event | None = None) -> Any:
        async def run() -> ToolOutput:
            seen.append(f"{name} starts")
            for _ in range(5):  # gives every other task the chance to run
                await asyncio.sleep(0)
            if wait is not None:
                await asyncio.wait_for(wait.wait(), 10)
            seen.append(f"{name} ends")
            return ToolOutput(name)

        return run

    async def fetching() -> ToolOutput:
        fetched.set()
        return ToolOutput("fetched")

    await asyncio.gather(
        first.around(ToolCall("c1", "run_command", "{}"), command, {"command": "x"},
                     step("command", fetched)),
        second.around(ToolCall("c1", "write_file", "{}"), write, {"path": "a.txt"},
                      step("write")),
        second.around(ToolCall("c2", "web_fetch", "{}"), fetch, {"url": "http://x/"}, fetching),
    )  # fmt: skip
    assert seen == ["command starts", "command ends", "write starts", "write ends"]
    calls = [r["call"] for r in records if r["type"] == "checkpoint"]
    assert sorted(calls) == ["s1/c1", "s2/c1", "s2/c2"]  # each sub-agent's own ids
