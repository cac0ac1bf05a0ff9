"""Fuzzing the journal reader: a real session's journal, cut or corrupted at any byte, resumes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.events import CompactionDone
from agent.permissions.policy import approve_all
from sessions.journal import JOURNAL_NAME, replay_journal
from sessions.store import CHUNKS_DIR, Session, SessionError
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Slow (hypothesis fuzzing): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# Damaged copies tried: each costs ~15 ms (write the copy, replay, resume, read the archive),
# so 250 stay within ~4 s while hitting every record kind (header, messages, tool results,
# compactions, usage) with each kind of damage many times.
EXAMPLES = 250
# How the scripted model recognizes pleat's compression instruction.
INSTRUCTION_MARK = "[pleat: context compaction"
# Turns of the recorded session, each reading TOOL_CALLS files in one reply; a fold after
# every second turn but the last UNFOLDED_TURNS: several chunks, a merge and shrunk outputs,
# and a stretch after the last fold, where no recorded history hides a damaged line, in ~1 s.
TURNS = 7
TOOL_CALLS = 3
UNFOLDED_TURNS = 3


@contextmanager
def pleat_home_at(path: Path) -> Iterator[None]:
    """PLEAT_HOME pointed at `path` for the block (hypothesis examples cannot use monkeypatch)."""
    before = os.environ.get("PLEAT_HOME")
    os.environ["PLEAT_HOME"] = str(path)
    try:
        yield
    finally:
        if before is None:
            del os.environ["PLEAT_HOME"]
        else:
            os.environ["PLEAT_HOME"] = before


def model(files: list[str]) -> Any:
    """Reads TOOL_CALLS files per request, then answers; folds alternate new chunk / merge."""
    pending = iter(range(0, len(files), TOOL_CALLS))
    folds = iter(range(1_000))

    def reply(body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if INSTRUCTION_MARK in str(last.get("content")):
            merge = "true" if next(folds) % 2 else "false"
            return Text(
                f"<topics>parts</topics><continues_previous>{merge}</continues_previous>"
                "<summary>## Task\nread the parts</summary>"
            )
        if last["role"] == "user":
            first = next(pending)
            return ToolCalls(
                [("read_file", {"path": f}) for f in files[first : first + TOOL_CALLS]]
            )
        return Text("read them")

    return reply


async def record_session(workspace: Path) -> str:
    files = [f"part{i}.txt" for i in range(TURNS * TOOL_CALLS)]
    for i, name in enumerate(files):
        (workspace / name).write_text(f"part {i} ünïcode\u2028 line\n" + "filler line\n" * 40)
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}, fallback=model(files)) as srv:
        config = Config(
            model=TEST_MODEL,
            api_base=srv.base_url,
            api_key=TEST_API_KEY,
            max_retries=0,
            # Small outputs already count as stale, so folds leave shrunk stubs in the tail.
            compaction=CompactionPolicy(
                context_window=16_000, tail_messages=6, stale_tool_output_chars=200
            ),
        )
        session = Session.create(workspace, model=TEST_MODEL)
        agent = build_agent(config, workspace, approve_all, session=session)
        for turn in range(TURNS):
            async for _ in agent.run_turn(f"read the parts, turn {turn}"):
                pass
            if turn % 2 == 1 and turn < TURNS - UNFOLDED_TURNS:
                events = [e async for e in agent.compact()]
                assert isinstance(events[-1], CompactionDone)
        session.close()
    return session.id


@dataclass(frozen=True)
class Recorded:
    """The undamaged session: its id, its directory, the journal's bytes and line spans."""

    session_id: str
    directory: Path
    data: bytes = field(repr=False)
    spans: list[tuple[int, int]] = field(repr=False)  # [start, end) of lines, newline included


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    root = tmp_path_factory.mktemp("journal-fuzz")
    (root / "ws").mkdir()
    with pleat_home_at(root / "home"):
        session_id = asyncio.run(record_session(root / "ws"))
    directory = root / "home" / "sessions" / session_id
    data = (directory / JOURNAL_NAME).read_bytes()
    spans, start = [], 0
    for line in data.splitlines(keepends=True):
        spans.append((start, start + len(line)))
        start += len(line)
    kinds = [json.loads(data[a:b])["type"] for a, b in spans]
    assert kinds.count("compaction") >= 2 and kinds[-1] != "compaction"
    assert any('"merged":true' in data[a:b].decode() for a, b in spans)
    assert b"shrunk_to_chunk" in data
    return Recorded(session_id, directory, data, spans)


@dataclass(frozen=True)
class Damage:
    kind: str  # truncate, flip, insert, delete
    at: int
    payload: bytes = b""  # flip: a one-byte XOR mask; insert: the bytes
    length: int = 0  # delete: bytes removed

    def apply(self, data: bytes) -> bytes:
        if self.kind == "truncate":
            return data[: self.at]
        if self.kind == "flip":
            return data[: self.at] + bytes([data[self.at] ^ self.payload[0]]) + data[self.at + 1 :]
        if self.kind == "insert":
            return data[: self.at] + self.payload + data[self.at :]
        return data[: self.at] + data[self.at + self.length :]


@st.composite
def damages(draw: st.DrawFn, recorded: Recorded) -> Damage:
    """A position drawn line first, so short lines (messages) and long ones (compactions) are
    hit alike, then one kind of damage there."""
    start, end = draw(st.sampled_from(recorded.spans))
    at = draw(st.integers(start, end - 1))
    kind = draw(st.sampled_from(["truncate", "flip", "insert", "delete"]))
    if kind == "flip":
        return Damage(kind, at, bytes([draw(st.integers(1, 255))]))
    if kind == "insert":
        extra = st.sampled_from([b"\n", b"\x00", b"\xff\xfe", b"{", b'"', b"}\n{", b"\r"])
        return Damage(kind, at, draw(st.binary(min_size=1, max_size=8) | extra))
    if kind == "delete":
        return Damage(kind, at, length=draw(st.integers(1, min(64, len(recorded.data) - at))))
    return Damage(kind, at)


def message_id(line: bytes) -> str | None:
    """The id of the message a journal line records (None for other lines and damaged ones).
    Summary messages have no line of their own: they live in compaction records, and a newer
    fold replaces them, so they are not among the messages that must survive."""
    try:
        record = json.loads(line)
        message = record["message"] if record["type"] == "message" else None
        return message["id"] if isinstance(message["id"], str) else None
    except (ValueError, KeyError, TypeError):
        return None


def silently_altered(original: bytes, damaged: bytes) -> list[bytes]:
    """Damaged lines that still parse as a JSON object: a flipped byte inside a string or a
    number that no format without checksums can notice."""
    before = set(original.splitlines())
    found = []
    for line in damaged.splitlines():
        if line in before:
            continue
        try:
            if isinstance(json.loads(line), dict):
                found.append(line)
        except ValueError:
            continue
    return found


def archived_ids(session: Session) -> set[str]:
    archive = session.archive
    return {
        m.id
        for chunk in archive.chunks()
        for part in archive.read_parts(chunk.number)
        for m in part
    }


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_damaged_journal_still_resumes_to_a_valid_history(
    recorded: Recorded, data: st.DataObject
) -> None:
    damage = data.draw(damages(recorded))
    event(damage.kind)
    damaged = damage.apply(recorded.data)
    with tempfile.TemporaryDirectory() as home, pleat_home_at(Path(home)):
        directory = Path(home) / "sessions" / recorded.session_id
        shutil.copytree(recorded.directory / CHUNKS_DIR, directory / CHUNKS_DIR)
        (directory / JOURNAL_NAME).write_bytes(damaged)
        replayed = replay_journal(directory / JOURNAL_NAME)  # never raises but OSError
        intact = [(a, b) for a, b in recorded.spans if b <= damage.at]  # lines before the damage
        try:
            session, history, notes = Session.resume(recorded.session_id)
        except SessionError:
            # Only a lost system prompt (line 2) with no compaction after it to restore one.
            assert not replayed.history or replayed.history[0].role != "system"
            assert len(intact) < 2
            event("refused: the system prompt was lost")
            return
        try:
            assert_history_valid(history)
            expected = {message_id(recorded.data[a:b]) for a, b in intact} - {None}
            silent = silently_altered(recorded.data, damaged)
            if any(json.loads(line).get("type") == "compaction" for line in silent):
                # A flipped digit in a recorded chunk state or history changes what the archive
                # keeps; only the history's validity can be promised then.
                event("silent change to a compaction record")
                return
            if silent:
                # A flipped byte in a message's id renames it: the old id cannot be found.
                event("silent change to a message, usage or header record")
                expected &= {message_id(line) for line in damaged.splitlines()}
            present = {m.id for m in history} | archived_ids(session)
            assert expected <= present, f"lost {sorted(expected - present)}; notes: {notes}"
        finally:
            session.close()


def test_records_of_the_wrong_shape_are_skipped_and_the_history_mended(tmp_path: Path) -> None:
    """Valid JSON that is no record this version writes used to escape as AttributeError or
    TypeError; a lost first request and a lost tool result are now mended."""
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    lines: list[Any] = [
        {"type": "session", "v": 1, "id": "s"},
        {"type": "message", "message": {"role": "system", "content": "sys", "id": "m1"}},
        {"type": "message", "message": "not an object"},  # was the first request
        {
            "type": "message",
            "message": {"role": "assistant", "content": None, "id": "m3", "tool_calls": [call]},
        },
        {"type": "message", "message": {"role": "user", "content": "hi", "id": 5}},  # bad id
        {"type": "message", "message": {"role": "user", "content": "next", "id": "m5"}},
        {
            "type": "message",
            "message": {"role": "tool", "content": "x", "id": "m6", "tool_call_id": "gone"},
        },
        {
            "type": "compaction",
            "history": [{"role": "system", "content": "s", "id": "m1"}],
            "chunk_state": "junk",
        },
        {"type": "message", "message": {"role": "usr", "content": "x", "id": "m7"}},
        {"type": "message", "message": {"role": "system", "content": "sys", "id": "m1"}},
        [[[]]],
        "just a string",
    ]
    path = tmp_path / JOURNAL_NAME
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n" + "[" * 100_000 + "\n")
    replayed = replay_journal(path)
    assert replayed.torn_lines == 8
    assert [(m.role, m.id) for m in replayed.history] == [
        ("system", "m1"),
        ("user", "m1-lost"),  # the lost first request's placeholder
        ("assistant", "m3"),
        ("tool", "m3-lost-1"),  # the lost result of call c1
        ("user", "m5"),  # the orphan result m6 was dropped
    ]
    assert_history_valid(replayed.history)
    assert any("m6 lost its call" in p for p in replayed.problems)
