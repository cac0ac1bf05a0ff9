"""read_file through the editor (tools/editor_files.py): which files the disk still answers, and
the editor's text made into the bytes the disk reader walks, bounded as a file on disk is."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tools.base import ToolError
from tools.editor_files import EditorFiles, editor_reason
from tools.paths import open_in_workspace
from tools.text_io import BINARY_SNIFF_BYTES, looks_binary, wide_encoding

# Characters of the editor's text encoded at a time while it is sized and hashed: the whole
# text is never encoded at once (a huge buffer would be held twice).
ENCODE_CHUNK_CHARS = 1024 * 1024
# Bytes of the hash that stands in for the modification time in a read's stamp
# (tools/result_facts.py ReadStamp): 7 keep it a positive 63-bit integer, as JSON and SQLite
# hold it, and a collision of two versions of one file's lines is out of reach.
VERSION_BYTES = 7


@dataclass(frozen=True)
class EditorText:
    """The editor's text of a file as read_file walks it."""

    data: bytes  # its UTF-8 bytes, at most the bound asked for, cut after a whole line
    size: int  # bytes of the whole text
    version: int  # a hash of the whole text: what a modification time is to a file on disk
    complete: bool  # False: `data` is only the first part of the text


def disk_answers(root: Path, path: Path, rel: str) -> bool:
    """Whether read_file reads `path` from the disk even with an editor: a directory, a
    device, a binary or UTF-16/32 file (an editor's text API carries none of them; the disk
    reader words their refusal). A text file, or none on disk, is the editor's to answer."""
    try:
        info = path.stat()
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return True
    try:
        fd = open_in_workspace(root, path, os.O_RDONLY | os.O_NONBLOCK, rel)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "rb") as stream:
            head = stream.read(BINARY_SNIFF_BYTES)
    except OSError:
        return False
    return wide_encoding(head) is not None or looks_binary(head)


async def editor_read(editor: EditorFiles, path: Path, rel: str) -> str:
    """The editor's text of the file (an unsaved buffer's), or a ToolError: not found, or why
    the editor could not read it."""
    try:
        text = await editor.read_text(path)
    except OSError as exc:
        raise ToolError(f"cannot read {rel} in the editor: {editor_reason(exc)}") from exc
    if text is None:
        raise ToolError(f"file not found: {rel}")
    return text


def editor_text(text: str, max_bytes: int) -> EditorText:
    """`text` as UTF-8 bytes (a lone surrogate kept as invalid bytes, shown as U+FFFD), sized
    and hashed whole, holding at most `max_bytes` of it: past them, up to the last line end."""
    digest = hashlib.blake2b(digest_size=VERSION_BYTES)
    held: list[bytes] = []
    size = kept = 0
    for start in range(0, len(text), ENCODE_CHUNK_CHARS):
        piece = text[start : start + ENCODE_CHUNK_CHARS].encode("utf-8", "surrogatepass")
        digest.update(piece)
        size += len(piece)
        if kept < max_bytes:
            held.append(piece[: max_bytes - kept])
            kept += len(held[-1])
    data = b"".join(held)
    complete = size == len(data)
    if not complete and (end := data.rfind(b"\n")) >= 0:
        data = data[: end + 1]
    return EditorText(data, size, int.from_bytes(digest.digest(), "big"), complete)
