"""The chunk file format: the front-matter codec, damage reported clearly, old files still read."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessions.archive import ChunkArchive
from sessions.chunk_blocks import ChunkFormatError
from sessions.chunk_format import (
    MAX_FRONT_MATTER_LINES,
    ChunkInfo,
    decode_front_matter,
    encode_front_matter,
    info_from_fields,
    read_front_matter,
    render_chunk,
    split_front_matter,
)
from sessions.messages import Message, ToolCall

# A chunk exactly as the archive wrote it before the format moved into its own module (written
# by that code: a fold with reasoning, a tool call, a meta line, a quoted id and a shrunk
# original, then one merge). The format must keep reading it, and keep writing it byte for byte.
OLD_CHUNK = (
    '---\nsession: "sess-1"\nchunk: 1\ntopics: "t3"\nfirst_id: "m1"\nlast_id: "m4"\n'
    'message_count: 5\nshrunk_count: 1\ntokens: 50\ncreated: "2026-01-02T03:04:05+00:00"\n'
    'merged: ["2026-01-02T03:04:05+00:00"]\n---\n\n# Archived conversation, chunk 1\n\n'
    "Topics: t3\n\nMessages m1 to m4, word for word (5 messages, about 50 tokens).\n\n"
    "## Folded messages\n\n### m1 · user\n\n```\nread a.py\n```\n\n### m2 · assistant\n\n"
    '- thinking: {"blocks": [{"type": "thinking", "thinking": "hm", "signature": "s"}], '
    '"text": null}\n\n- call call_1: read_file\n\n```json\n{"path": "a.py"}\n```\n\n'
    "_(no text content)_\n\n### m3 · tool · read_file · call_1\n\n"
    '- meta: {"is_error": false}\n\n````\nprint(1)\n```\n\n````\n\n'
    '### "weird \\"id\\" · x" · user\n\n```\nodd id\n```\n\n### m4 · assistant\n\n```\ndone\n```'
    "\n\n## Tool outputs shrunk in the kept tail\n\nThese messages are still in the live "
    "conversation, shortened to a stub; their full original text is below.\n\n"
    "### m3 · tool · read_file · call_1\n\n```\nfull original\n```\n\n"
)
CALL = ToolCall("call_1", "read_file", '{"path": "a.py"}')
THINKING = ({"type": "thinking", "thinking": "hm", "signature": "s"},)
OLD_FOLDED = [
    Message("user", "read a.py", id="m1"),
    Message("assistant", None, (CALL,), id="m2", thinking_blocks=THINKING),
    Message(
        "tool",
        "print(1)\n```\n",
        tool_call_id="call_1",
        name="read_file",
        id="m3",
        meta={"is_error": False},
    ),
    Message("user", "odd id", id='weird "id" · x'),
    Message("assistant", "done", id="m4"),
]
OLD_SHRUNK = [Message("tool", "full original", tool_call_id="call_1", name="read_file", id="m3")]
TIME = "2026-01-02T03:04:05+00:00"


def old_info(path: Path) -> ChunkInfo:
    return ChunkInfo(1, path, "t3", "m1", "m4", 5, 50, TIME, (TIME,), "sess-1", 1)


def test_an_old_chunk_reads_and_is_rewritten_byte_for_byte(tmp_path: Path) -> None:
    archive = ChunkArchive(tmp_path, "sess-1")
    archive.path(1).write_text(OLD_CHUNK, encoding="utf-8")
    assert archive.chunks() == [old_info(archive.path(1))]
    assert archive.read_parts(1) == (OLD_FOLDED, OLD_SHRUNK)
    assert render_chunk(old_info(archive.path(1)), OLD_FOLDED, OLD_SHRUNK) == OLD_CHUNK


def test_a_chunk_without_shrunk_count_still_reads(tmp_path: Path) -> None:
    text = OLD_CHUNK.replace("shrunk_count: 1\n", "")
    path = tmp_path / "chunk-0001.md"
    path.write_text(text, encoding="utf-8")
    assert read_front_matter(path, 1).shrunk_count == 0


def test_front_matter_round_trips_through_the_codec() -> None:
    fields = {"topics": 'a "quoted"\nline · é', "n": 3, "list": ["x"], "none": None}
    text = encode_front_matter(fields)
    assert text.startswith("---\n") and text.endswith("\n---\n")
    decoded, taken = decode_front_matter(text.splitlines())
    assert decoded == fields
    assert taken == len(fields) + 2
    body = "\n# Title\n---\nnot front matter\n"
    parsed, start = split_front_matter(text + body)
    assert parsed == fields and (text + body)[start:] == body


def test_the_codec_tolerates_harmless_damage() -> None:
    # A byte-order mark, CRLF line ends, a blank line and an unknown key, as an editor may leave.
    lines = ["\ufeff---\r", 'topics: "x"\r', "", "added_later: 1", "---\r"]
    assert decode_front_matter(lines) == ({"topics": "x", "added_later": 1}, 5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no front matter: the file is empty"),
        ("# a heading\n", "no front matter: the first line is '# a heading'"),
        ("---\ntopics x\n---\n", "front-matter line 2 is not `key: value`: 'topics x'"),
        ("---\nchunk: one\n---\n", "front-matter line 2: the value of chunk is not JSON: 'one'"),
        ('---\ntopics: "x"\n', "front matter not closed: no second --- line"),
        ("---\n" + "a: 1\n" * 100, f"front matter not closed within {MAX_FRONT_MATTER_LINES}"),
        ("---\n" + "x" * 500 + "\n---\n", "front-matter line 2 is not `key: value`: 'xxxxx"),
    ],
)
def test_damaged_front_matter_says_what_and_where(text: str, message: str) -> None:
    with pytest.raises(ChunkFormatError) as caught:
        split_front_matter(text)
    assert str(caught.value).startswith(message)
    assert len(str(caught.value)) < 200  # a damaged line is quoted, never dumped whole


def test_mistyped_fields_are_named(tmp_path: Path) -> None:
    fields, _ = split_front_matter(OLD_CHUNK.replace("tokens: 50", 'tokens: "many"'))
    with pytest.raises(ChunkFormatError, match=r"wrong type: tokens$"):
        info_from_fields(fields, 1, tmp_path)
    fields.pop("created")
    with pytest.raises(ChunkFormatError, match="lacks created"):
        info_from_fields(fields, 1, tmp_path)


def test_reading_the_index_stops_at_the_front_matter(tmp_path: Path) -> None:
    path = tmp_path / "chunk-0001.md"
    # Front matter, then bytes that are not UTF-8: the index never reads that far.
    path.write_bytes(OLD_CHUNK.split("\n\n# Archived")[0].encode() + b"\n\n\xff\xfe broken\n")
    assert read_front_matter(path, 1).topics == "t3"
    assert ChunkArchive(tmp_path, "sess-1").chunks()[0].topics == "t3"
    path.write_bytes(b"---\n\xff\n---\n")
    with pytest.raises(ChunkFormatError, match="not UTF-8"):
        read_front_matter(path, 1)
