"""Images on messages: sent as OpenAI content parts (merged user turns, a tool's images after its
reply's results), kept by reference in the journal and the archive, damaged references dropped."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from sessions.archive import ChunkArchive
from sessions.chunk_blocks import Cursor, parse_message, render_message
from sessions.image_ref import ImageRef
from sessions.image_store import SessionImages
from sessions.journal import Journal, replay_journal
from sessions.messages import Message, ToolCall, provider_messages, tool_result, user
from sessions.redact import KnownSecrets
from tests.support import images
from tools.archive_reader import ArchiveReaderTool
from tools.base import ToolContext

PNG = images.png(80, 60)


class Source:
    """An image source that gives each image a data URL of its stored bytes, or a refusal."""

    def __init__(self, store: SessionImages, refusal: str | None = None) -> None:
        self.store, self.refusal = store, refusal

    def image_part(self, image: ImageRef) -> dict[str, Any] | str:
        if self.refusal is not None:
            return self.refusal
        encoded = base64.b64encode(self.store.read(image)).decode()
        return {
            "type": "image_url",
            "image_url": {"url": f"data:{image.media_type};base64,{encoded}"},
        }


@pytest.fixture
def store(tmp_path: Path) -> SessionImages:
    return SessionImages(tmp_path / "images")


def shot(store: SessionImages, data: bytes = PNG, source: str = "ui/shot.png") -> ImageRef:
    return store.keep(data, media_type="image/png", width=80, height=60, source=source)


def test_a_copy_is_private_content_addressed_and_checked(store: SessionImages) -> None:
    first, again = shot(store), shot(store, source="elsewhere/shot.png")
    assert first.file == again.file and store.names() == [first.file]
    assert (store.path(first).stat().st_mode & 0o777) == 0o600
    assert (store.directory.stat().st_mode & 0o777) == 0o700
    assert store.read(first) == PNG
    store.path(first).write_bytes(images.png(80, 60, seed=9))
    with pytest.raises(OSError, match=r"shot\.png was changed on disk"):
        store.read(first)


def test_a_prompt_with_an_image_is_sent_as_text_then_labelled_image(store: SessionImages) -> None:
    image = shot(store)
    sent = provider_messages([user("what is in @ui/shot.png?", (image,))], Source(store))
    encoded = base64.b64encode(PNG).decode()
    assert sent == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is in @ui/shot.png?"},
                {"type": "text", "text": "[image shot.png 80×60]"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}},
            ],
        }
    ]


def test_a_model_without_vision_gets_a_note_instead(store: SessionImages) -> None:
    refused = Source(store, "gpt-3.5-turbo does not accept images")
    sent = provider_messages([user("look", (shot(store),))], refused)
    assert sent[0]["content"] == [
        {"type": "text", "text": "look"},
        {
            "type": "text",
            "text": "[image shot.png 80×60 (PNG): not shown: gpt-3.5-turbo does not accept images]",
        },
    ]
    unread = provider_messages([user("look", (shot(store),))])  # no source at all
    assert "not shown: images cannot be read here" in unread[0]["content"][1]["text"]


def test_consecutive_user_messages_merge_with_parts(store: SessionImages) -> None:
    summary = Message("user", "[summary]", meta={"kind": "summary", "injected": True})
    history = [Message("system", "sys"), summary, user("and this?", (shot(store),))]
    sent = provider_messages(history, Source(store))
    assert [m["role"] for m in sent] == ["system", "user"]
    kinds = [part["type"] for part in sent[1]["content"]]
    assert kinds == ["text", "text", "text", "image_url"]
    assert sent[1]["content"][0] == {"type": "text", "text": "[summary]"}
    assert provider_messages(history, Source(store)) == sent  # the same payload every time


def test_a_tools_images_follow_all_results_of_its_reply(store: SessionImages) -> None:
    calls = (ToolCall("c1", "read_file", "{}"), ToolCall("c2", "read_file", "{}"))
    history = [
        Message("system", "sys"),
        user("read both"),
        Message("assistant", None, tool_calls=calls),
        tool_result(calls[0], "shot.png is a PNG image", (shot(store),)),
        tool_result(calls[1], "text of b.txt"),
        user("thanks"),
    ]
    sent = provider_messages(history, Source(store))
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert sent[3]["content"] == "shot.png is a PNG image"  # a tool message stays text
    carrier = sent[5]["content"]
    assert carrier[0]["text"] == "[pleat: the images read by the tool calls above]"
    assert [part["type"] for part in carrier] == ["text", "text", "image_url", "text"]
    assert carrier[-1] == {"type": "text", "text": "thanks"}  # merged: one user turn


def test_records_hold_references_never_bytes(store: SessionImages, tmp_path: Path) -> None:
    message = user("look", (shot(store),))
    message.id = "m2"
    record = message.to_record()
    assert record["images"] == [shot(store).to_record()]
    assert Message.from_record(json.loads(json.dumps(record))) == message
    journal = Journal(tmp_path)
    journal.message(Message("system", "sys", id="m1"))
    journal.message(message)
    journal.close()
    text = (tmp_path / "journal.jsonl").read_text()
    assert base64.b64encode(PNG).decode()[:40] not in text
    assert replay_journal(tmp_path / "journal.jsonl").history[1] == message


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ({"file": "../../etc/passwd"}, "bad file name"),
        ({"media_type": "image/svg+xml"}, "bad media type"),
        ({"width": 0}, "bad dimensions"),
        ({"height": "600"}, "bad dimensions"),
        ({"size": -1}, "bad size"),
        ({"source": None}, "bad source"),
    ],
)
def test_a_damaged_reference_is_left_out_and_said(
    store: SessionImages, tmp_path: Path, damage: dict[str, Any], why: str
) -> None:
    good = shot(store).to_record()
    record = {"role": "user", "content": "look", "id": "m2", "images": [good, good | damage]}
    lines = [
        {"type": "session", "v": 1},
        {"type": "message", "message": {"role": "system", "content": "sys", "id": "m1"}},
        {"type": "message", "message": record},
    ]
    path = tmp_path / "journal.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    replayed = replay_journal(path)
    assert replayed.history[1].content == "look"  # the words are kept
    assert [i.to_record() for i in replayed.history[1].images] == [good]
    assert len(replayed.problems) == 1 and why in replayed.problems[0]


def test_images_on_an_assistant_message_make_a_damaged_line(tmp_path: Path) -> None:
    lines = [
        {"type": "session", "v": 1},
        {"type": "message", "message": {"role": "system", "content": "sys", "id": "m1"}},
        {"type": "message", "message": {"role": "assistant", "content": "x", "images": [{}]}},
    ]
    path = tmp_path / "journal.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert "line 3 of journal.jsonl is damaged" in replay_journal(path).problems[0]


def test_a_chunk_block_links_its_images_and_reads_them_back(store: SessionImages) -> None:
    image = shot(store, source="ui/we[ir]d\\name\x1b.png")
    message = Message("user", "look", id="m4", images=(image,))
    block = render_message(message)
    assert f"![we_ir_d_name_.png 80×60](images/{image.file})" in block
    assert parse_message(Cursor(block, 0)) == message


def test_a_chunk_line_with_a_damaged_reference_is_refused(store: SessionImages) -> None:
    block = render_message(Message("user", "look", id="m4", images=(shot(store),)))
    damaged = block.replace('"width": 80', '"width": -80')
    with pytest.raises(ValueError, match="bad dimensions"):
        parse_message(Cursor(damaged, 0))


def test_the_archive_keeps_its_own_copies(store: SessionImages, tmp_path: Path) -> None:
    archive = ChunkArchive(tmp_path / "chunks", "s1")
    archive.images = store
    image = shot(store)
    folded = [Message("user", "look", id="m2", images=(image,)), Message("assistant", "a", id="m3")]
    archive.write_chunk(folded, topics="a screenshot", tokens=10)
    copy = tmp_path / "chunks" / "images" / image.file
    assert copy.read_bytes() == PNG and (copy.stat().st_mode & 0o777) == 0o600
    store.path(image).unlink()  # the session's copy gone: the archive still has its own
    archive.merge_into_last([Message("user", "more", id="m4")], topics="b", tokens=1)
    assert archive.read_messages(1)[0].images == (image,)
    assert copy.read_bytes() == PNG


def test_redaction_covers_image_paths_and_keeps_references(store: SessionImages) -> None:
    secret = "sk-live-0123456789abcdefghij"
    message = Message("user", f"key {secret}", id="m2", images=(shot(store, source=secret),))
    redacted = KnownSecrets([secret]).message(message)
    assert secret not in (redacted.content or "") and redacted.images[0].source == "[REDACTED]"
    assert redacted.images[0].file == message.images[0].file


async def test_read_archive_names_the_images_of_a_message(
    store: SessionImages, tmp_path: Path
) -> None:
    archive = ChunkArchive(tmp_path / "chunks", "s1")
    archive.images = store
    image = shot(store)
    archive.write_chunk([Message("user", "look", id="m2", images=(image,))], topics="a", tokens=1)
    output = await ArchiveReaderTool(archive).run(
        {"action": "read", "chunk": 1}, ToolContext(tmp_path)
    )
    assert (
        f"look\n[image attached: shot.png 80×60 (PNG), archived with the chunk as "
        f"images/{image.file}]"
    ) in output.text
