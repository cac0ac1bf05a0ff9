"""Byte-level helpers shared by the file tools: binary sniffing, bounded line reading, decoding."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from typing import BinaryIO

# Git's own heuristic: a NUL byte within the first 8 KiB marks a file as binary.
BINARY_SNIFF_BYTES = 8192
# Byte-order marks of the wide Unicode encodings, longest first (UTF-32 LE begins like UTF-16
# LE): text in them is full of NUL bytes, yet text (Windows tools write UTF-16 with a BOM).
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def wide_encoding(head: bytes) -> str | None:
    """ "utf-16" or "utf-32" when the file starts with that encoding's byte-order mark."""
    for bom, encoding in _WIDE_BOMS:
        if head.startswith(bom):
            return encoding
    return None


def looks_binary(head: bytes) -> bool:
    """True when the first bytes of a file hold a NUL byte (text never does; callers that
    read UTF-16 or UTF-32 check wide_encoding first)."""
    return b"\x00" in head


def wide_lines(stream: BinaryIO, encoding: str, max_bytes: int) -> Iterator[tuple[str, bool]]:
    """The lines of a UTF-16 or UTF-32 file (at most `max_bytes` of it), decoded, each with
    whether invalid bytes became U+FFFD; the byte-order mark is dropped."""
    data = stream.read(max_bytes)
    text = data.decode(encoding, errors="replace")
    for line in text.splitlines():
        yield line, "\ufffd" in line


def iter_lines(stream: BinaryIO, max_line_bytes: int) -> Iterator[tuple[bytes, bool]]:
    """Yield each line without its line ending, and whether it was cut.

    At most `max_line_bytes` of a line are ever held in memory, so a single-line minified
    bundle or a log without newlines cannot exhaust memory; the rest of such a line is skipped.
    """
    while True:
        chunk = stream.readline(max_line_bytes)
        if not chunk:
            return
        if chunk.endswith(b"\n"):
            yield chunk[:-1].removesuffix(b"\r"), False
            continue
        if len(chunk) < max_line_bytes:  # the last line, without a final newline
            yield chunk.removesuffix(b"\r"), False
            return
        skipped = 0
        while rest := stream.readline(max_line_bytes):
            ended = rest.endswith(b"\n")
            skipped += len(rest) - (1 if ended else 0)
            if ended:
                break
        if skipped == 0:
            yield chunk.removesuffix(b"\r"), False
        else:
            yield chunk, True


def decode_line(raw: bytes, cut: bool) -> tuple[str, bool]:
    """Decode one line as UTF-8; the flag is True when invalid bytes became U+FFFD.

    A cut line may end inside a multi-byte character: the incremental decoder drops that
    incomplete tail instead of reporting it as invalid.
    """
    try:
        if cut:
            return codecs.getincrementaldecoder("utf-8")().decode(raw, final=False), False
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True
