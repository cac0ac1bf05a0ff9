"""/export's markdown: folded chunks first and marked, shrunk tool results written as their
archived originals, pleat's own messages left out, fences that hold backticks, escapes made
visible, the default name, and a file never overwritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.conversation.export import (
    ExportRefused,
    conversation_markdown,
    default_name,
    export_conversation,
)
from sessions.archive import ChunkArchive
from sessions.messages import Message, ToolCall
from sessions.redact import KnownSecrets

CALL = ToolCall("c1", "read_file", '{"path": "a.py"}')


def archive_with_a_fold(directory: Path) -> tuple[ChunkArchive, list[Message]]:
    """An archive whose chunk 1 holds a folded turn and the original of a shrunk result; the
    live history after that fold."""
    archive = ChunkArchive(directory, "s1")
    folded = [
        Message(role="user", content="look at ```a.py```", id="m2"),
        Message(role="assistant", content="", tool_calls=(CALL,), id="m3"),
        Message(role="tool", content="print('a')", tool_call_id="c1", name="read_file", id="m4"),
    ]
    shrunk = [Message(role="tool", content="the whole output", name="run_command", id="m7")]
    archive.write_chunk(folded, topics="a.py", tokens=10, shrunk=shrunk)
    live = [
        Message(role="system", content="You are pleat.", id="m1"),
        Message(role="user", content="summary text", id="s", meta={"kind": "summary"}),
        Message(role="user", content="run it \x1b[2J", id="m5"),
        Message(role="assistant", content="ran", id="m6"),
        Message(role="tool", content="[masked]", name="run_command", id="m7"),
    ]
    return archive, live


def test_folded_parts_come_first_marked_and_the_rest_follows(tmp_path: Path) -> None:
    archive, live = archive_with_a_fold(tmp_path / "chunks")
    rendered = conversation_markdown("s1", tmp_path, live, archive)
    folded, rest = rendered.text.split("## In the live context")
    assert "## Folded into chunk 1 · a.py" in folded
    assert "### User (folded)\n\nlook at ```a.py```" in folded
    assert "Tool call: `read_file`" in folded and "### Tool result: read_file (folded)" in folded
    assert "````\nprint('a')\n````" not in folded  # no backticks inside: three are enough
    assert "```\nprint('a')\n```" in folded
    assert "run it \\x1b[2J" in rest and "\x1b" not in rendered.text
    assert "the whole output" in rest and "[masked]" not in rest
    assert "You are pleat." not in rendered.text and "summary text" not in rendered.text
    assert rendered.folded == 3 and len(rendered.messages) == 6


def test_the_default_name_and_no_overwrite(tmp_path: Path) -> None:
    archive, live = archive_with_a_fold(tmp_path / "chunks")
    messages = conversation_markdown("s1", tmp_path, live, archive).messages
    assert default_name(messages, 0).endswith("-look-at-a-py.md")
    assert default_name([], 0).count("-") == 3  # the time alone
    exported = export_conversation("s1", tmp_path, live, archive, "out.md")
    assert exported.path == tmp_path / "out.md" and exported.folded == 3
    (tmp_path / "link.md").symlink_to(tmp_path / "elsewhere.md")
    for taken in ("out.md", "link.md"):
        with pytest.raises(ExportRefused):
            export_conversation("s1", tmp_path, live, archive, taken)
    assert not (tmp_path / "elsewhere.md").exists()


def test_the_configured_key_never_reaches_the_file(tmp_path: Path) -> None:
    """The live history holds the key as the model saw it (a file it read, its answer); the
    journal and the archive redact it, and so must the export (found by review)."""
    key = "sk-test-0123456789abcdefghij"
    archive, live = archive_with_a_fold(tmp_path / "chunks")
    archive.secrets = KnownSecrets([key])
    live.append(Message(role="assistant", content=f"the key is {key}", id="m8"))
    exported = export_conversation("s1", tmp_path, live, archive, "out.md")
    text = exported.path.read_text()
    assert key not in text and "the key is [REDACTED]" in text
