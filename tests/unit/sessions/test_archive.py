"""The chunk archive: exact round-trips of any content, numbering, merging, durability, damage."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessions.archive import ChunkArchive, ChunkFormatError
from sessions.messages import Message, ToolCall

# Fragments that look like the archive's own syntax, mixed into random text.
TRICKY = [
    "`",
    "``",
    "```",
    "````python",
    "\n",
    "\r",
    "\r\n",
    " ",
    "\t",
    "---",
    "\n---\n",
    "session: x",
    "### m1 · user",
    "\n### m2 · tool · read_file · call_1\n",
    "## Tool outputs shrunk in the kept tail",
    "## Folded messages",
    "- call call_1: read_file",
    "- meta: {}",
    "_(no text content)_",
    '"',
    "·",
    ": ",
    "é",
    "日本",
    "\u2028",
    "\x00",
    "\x85",
]
tricky_text = st.lists(st.one_of(st.sampled_from(TRICKY), st.text(max_size=6)), max_size=12).map(
    "".join
)
identifiers = st.one_of(
    st.from_regex(r"m[0-9]{1,4}", fullmatch=True),
    st.from_regex(r"call_[A-Za-z0-9]{1,8}", fullmatch=True),
    tricky_text,
)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
tool_calls = st.builds(
    ToolCall,
    id=identifiers,
    name=identifiers,
    arguments=st.one_of(json_values.map(json.dumps), tricky_text),
)
messages = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "assistant", "tool"]),
    content=st.one_of(st.none(), tricky_text),
    tool_calls=st.lists(tool_calls, max_size=3).map(tuple),
    tool_call_id=st.one_of(st.none(), identifiers),
    name=st.one_of(st.none(), identifiers),
    id=identifiers,
    meta=st.dictionaries(st.text(max_size=6), json_values, max_size=3),
)


def archive_in(tmp: Path) -> ChunkArchive:
    return ChunkArchive(tmp / "session" / "chunks", "sess-1")


def conversation(start: int, count: int) -> list[Message]:
    out = []
    for i in range(start, start + count):
        out.append(Message(role="user" if i % 2 else "assistant", content=f"text {i}", id=f"m{i}"))
    return out


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(folded=st.lists(messages, min_size=1, max_size=6), shrunk=st.lists(messages, max_size=3))
def test_any_messages_round_trip_exactly(folded: list[Message], shrunk: list[Message]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        archive = archive_in(Path(tmp))
        info = archive.write_chunk(folded, topics="t", tokens=1, shrunk=shrunk)
        assert archive.read_parts(info.number) == (folded, shrunk)
        assert archive.read_messages(info.number) == folded + shrunk


def test_tricky_contents_round_trip(tmp_path: Path) -> None:
    call = ToolCall("call_abc", "read_file", '{"path": "a ```` b.py"}')
    folded = [
        Message("user", "---\nsession: fake\nchunk: 9\n---\n", id="m1"),
        Message("assistant", None, (call,), id="m2"),
        Message("tool", "", tool_call_id="call_abc", name="read_file", id="m3"),
        Message("assistant", "", id="m4"),
        Message("user", "```\n### m5 · user\n```\n````` nested `````", id="m5"),
        Message("user", "line with trailing spaces   \r\nand CR\rend\n\n", id="m6"),
        Message("user", "\n", id="m7"),
        Message("tool", "x", tool_call_id=None, name=None, id="m8", meta={"is_error": True}),
        Message("user", "lone surrogate \ud800 and emoji 🎉", id="m 9 · odd"),
        Message("assistant", "`", (ToolCall("a: b", "-", ""),), id=""),
    ]
    archive = archive_in(tmp_path)
    archive.write_chunk(folded, topics="a, b", tokens=5)
    assert archive.read_messages(1) == folded


def test_file_is_readable_markdown(tmp_path: Path) -> None:
    call = ToolCall("call_abc", "read_file", '{"path": "a.py"}')
    folded = [
        Message("user", "read a.py", id="m12"),
        Message("assistant", "Reading it.", (call,), id="m13"),
        Message("tool", "print(1)\n", tool_call_id="call_abc", name="read_file", id="m14"),
    ]
    info = archive_in(tmp_path).write_chunk(folded, topics="reading, a.py", tokens=30)
    text = info.path.read_text()
    assert text.startswith('---\nsession: "sess-1"\nchunk: 1\ntopics: "reading, a.py"\n')
    assert "\nmerged: []\n---\n" in text
    assert "### m12 · user\n" in text
    assert "### m14 · tool · read_file · call_abc\n" in text
    assert '- call call_abc: read_file\n\n```json\n{"path": "a.py"}\n```\n' in text
    assert "```\nprint(1)\n\n```\n" in text


def test_fence_is_longer_than_any_backtick_run(tmp_path: Path) -> None:
    content = "a ```` b `````` c"
    info = archive_in(tmp_path).write_chunk(
        [Message("user", content, id="m1")], topics="", tokens=1
    )
    assert f"```````\n{content}\n```````\n" in info.path.read_text()


def test_write_chunk_numbers_and_front_matter(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    assert archive.chunks() == []
    first = archive.write_chunk(conversation(1, 3), topics="one", tokens=10)
    second = archive.write_chunk(conversation(4, 2), topics='two, "quoted"\nline', tokens=20)
    third = archive.write_chunk(conversation(6, 1), topics="three", tokens=30)
    assert [c.number for c in archive.chunks()] == [1, 2, 3]
    assert [c.path.name for c in archive.chunks()] == [
        "chunk-0001.md",
        "chunk-0002.md",
        "chunk-0003.md",
    ]
    assert archive.chunks() == [first, second, third]
    assert (first.first_id, first.last_id, first.message_count) == ("m1", "m3", 3)
    assert second.topics == 'two, "quoted"\nline'
    assert (third.tokens, third.session, third.merged, third.merges) == (30, "sess-1", (), 0)
    datetime.fromisoformat(first.created)
    # A fresh archive object reads the same front matter from disk.
    assert ChunkArchive(archive.directory, "sess-1").chunks() == [first, second, third]


def test_empty_chunk_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        archive_in(tmp_path).write_chunk([], topics="", tokens=0)


def test_merge_into_last_appends_and_updates_front_matter(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    archive.write_chunk(conversation(1, 2), topics="old", tokens=10)
    first = archive.write_chunk(conversation(3, 3), topics="setup", tokens=100)
    merged = archive.merge_into_last(conversation(6, 2), topics="setup, tests", tokens=40)
    assert merged.number == first.number == 2
    assert merged.topics == "setup, tests"
    assert (merged.first_id, merged.last_id, merged.message_count) == ("m3", "m7", 5)
    assert merged.tokens == 140
    assert merged.created == first.created
    assert len(merged.merged) == 1
    datetime.fromisoformat(merged.merged[0])
    again = archive.merge_into_last(conversation(8, 1), topics="tests", tokens=5)
    assert (again.merges, again.tokens, again.last_id) == (2, 145, "m8")
    assert archive.read_messages(2) == conversation(3, 6)
    assert archive.read_messages(1) == conversation(1, 2)
    assert archive.chunks()[-1] == again
    assert [c.number for c in archive.chunks()] == [1, 2]


def test_merge_without_chunks_writes_the_first(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    info = archive.merge_into_last(conversation(1, 2), topics="x", tokens=3)
    assert (info.number, info.merged, info.message_count) == (1, (), 2)
    assert archive.read_messages(1) == conversation(1, 2)


def test_shrunk_section_round_trips_and_merges_once(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    big = Message("tool", "full output\n" * 50, tool_call_id="c1", name="run_command", id="m45")
    other = Message("tool", "another", tool_call_id="c2", name="grep", id="m46")
    info = archive.write_chunk(conversation(1, 3), topics="x", tokens=3, shrunk=[big])
    assert "## Tool outputs shrunk in the kept tail" in info.path.read_text()
    assert info.shrunk_count == 1
    assert archive.read_parts(1) == (conversation(1, 3), [big])
    merged = archive.merge_into_last(conversation(4, 1), topics="y", tokens=1, shrunk=[big, other])
    assert archive.read_parts(1) == (conversation(1, 4), [big, other])
    assert merged.shrunk_count == 2
    assert archive.read_messages(1) == [*conversation(1, 4), big, other]


def test_find_locates_messages(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    original = Message("tool", "the full text", tool_call_id="c", name="read_file", id="m9")
    archive.write_chunk(conversation(1, 3), topics="a", tokens=1, shrunk=[original])
    stub = Message("tool", "[stub]", tool_call_id="c", name="read_file", id="m9")
    archive.write_chunk([*conversation(4, 2), stub], topics="b", tokens=1)
    odd = Message("user", "odd id", id='weird "id" · x')
    archive.write_chunk([odd], topics="c", tokens=1)
    assert archive.find("m2") == (1, conversation(2, 1)[0])
    assert archive.find("m5") == (2, conversation(5, 1)[0])
    assert archive.find("m9") == (1, original)  # the oldest copy: the original, not the stub
    assert archive.find('weird "id" · x') == (3, odd)
    assert archive.find("m99") is None
    assert archive.find("m1 · user") is None


def test_writes_leave_no_temp_files_and_ignore_stale_ones(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    archive.write_chunk(conversation(1, 2), topics="a", tokens=1)
    archive.merge_into_last(conversation(3, 2), topics="b", tokens=1)
    assert sorted(p.name for p in archive.directory.iterdir()) == ["chunk-0001.md"]
    # A temp file left by a crash mid-write is never taken for a chunk.
    (archive.directory / ".chunk-0002.md.123.tmp").write_text("---\npartial")
    assert [c.number for c in archive.chunks()] == [1]
    assert archive.write_chunk(conversation(5, 1), topics="c", tokens=1).number == 2


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_permissions_are_private(tmp_path: Path) -> None:
    old = os.umask(0)  # even with a permissive umask
    try:
        archive = archive_in(tmp_path)
        info = archive.write_chunk(conversation(1, 1), topics="a", tokens=1)
        merged = archive.merge_into_last(conversation(2, 1), topics="a", tokens=1)
    finally:
        os.umask(old)
    assert stat.S_IMODE(archive.directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(info.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(merged.path.stat().st_mode) == 0o600


def test_broken_chunks_are_skipped(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    archive.write_chunk(conversation(1, 1), topics="a", tokens=1)
    archive.write_chunk(conversation(2, 1), topics="b", tokens=1)
    directory = archive.directory
    (directory / "chunk-0001.md").write_bytes(b"\xff\xfe garbage without front matter")
    (directory / "chunk-0003.md").write_text('---\nsession: "s"\nchunk: 3\ntokens: "many"\n---\n')
    (directory / "chunk-0004.md").mkdir()
    (directory / "chunk-0005.md").write_text("---\n" + "x" * 100 + "\n")  # never closed
    assert [c.number for c in archive.chunks()] == [2]
    assert archive.find("m1") is None
    assert archive.find("m2") is not None
    with pytest.raises(ChunkFormatError):
        archive.read_messages(1)
    # The next chunk goes past every file present, broken or not, and overwrites nothing.
    assert archive.write_chunk(conversation(3, 1), topics="c", tokens=1).number == 6
    # Merging into a broken newest chunk writes a new chunk and leaves the broken one be.
    (directory / "chunk-0006.md").write_text("not a chunk")
    info = archive.merge_into_last(conversation(4, 1), topics="d", tokens=1)
    assert info.number == 7
    assert (directory / "chunk-0006.md").read_text() == "not a chunk"
    assert [c.number for c in archive.chunks()] == [2, 7]


def test_chunk_body_damage_raises_format_error(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    info = archive.write_chunk(conversation(1, 2), topics="a", tokens=1)
    text = info.path.read_text()
    info.path.write_text(text[: text.rindex("```")])  # cut inside the last fence
    with pytest.raises(ChunkFormatError):
        archive.read_messages(1)


def test_front_matter_cache_follows_file_changes(tmp_path: Path) -> None:
    archive = archive_in(tmp_path)
    info = archive.write_chunk(conversation(1, 1), topics="aaaa", tokens=1)
    assert archive.chunks()[0].topics == "aaaa"
    # Another writer (a second archive object) changes the file: size and mtime change.
    ChunkArchive(archive.directory, "sess-1").merge_into_last(
        conversation(2, 1), topics="bb", tokens=1
    )
    assert archive.chunks()[0].topics == "bb"
    # Same size and same mtime: the cached front matter is served without reading the file.
    before = info.path.stat()
    text = info.path.read_text()
    info.path.write_text(text.replace('topics: "bb"', 'topics: "cc"'))
    os.utime(info.path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert archive.chunks()[0].topics == "bb"
    assert ChunkArchive(archive.directory, "sess-1").chunks()[0].topics == "cc"


def test_thousand_messages_round_trip(tmp_path: Path) -> None:
    call = ToolCall("call_x", "run_command", '{"command": "pytest -q"}')
    folded: list[Message] = []
    for i in range(0, 1000, 2):
        folded.append(Message("assistant", f"step {i} ```", (call,), id=f"m{i}"))
        folded.append(
            Message(
                "tool", f"out {i}\n" * 20, tool_call_id="call_x", name="run_command", id=f"m{i + 1}"
            )
        )
    archive = archive_in(tmp_path)
    info = archive.write_chunk(folded, topics="long", tokens=100_000)
    assert info.message_count == 1000
    assert archive.read_messages(1) == folded
    assert archive.find("m999") == (1, folded[999])
