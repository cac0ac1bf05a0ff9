"""Reading an image file to attach: recognized by its bytes, refused with a reason past the limits
every provider pleat talks to accepts."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tools.image_format import MAGIC_BYTES, ImageFormatError, ImageInfo, is_image, sniff

# Anthropic refuses an image whose base64 form passes 5 MiB, and base64 turns 3 bytes into 4, so
# the file may have 3/4 of that (OpenAI and Gemini take 20 MB; the strictest limit wins, so a
# session keeps working when it moves to another provider). pleat does not re-encode images
# (that needs an imaging library): a bigger one gets a note saying so instead.
MAX_IMAGE_BYTES = 5 * 1024 * 1024 * 3 // 4
# Anthropic refuses an image with a side over 8000 pixels (OpenAI and Gemini scale big images
# down themselves).
MAX_IMAGE_SIDE = 8_000
# Flags for opening an image to read: never block on a FIFO named like an image (the kind is
# checked right after the open), never leak the descriptor into a command started meanwhile.
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True)
class LoadedImage:
    """An image's bytes, ready to be copied into the session, with its format and size."""

    data: bytes
    info: ImageInfo
    source: str  # the path as the user or the model wrote it, for display

    @property
    def label(self) -> str:
        name = Path(self.source).name or self.source
        return f"{name} {self.info.width}×{self.info.height}"


class ImageRefused(Exception):
    """An image that cannot be sent: one line saying which and why."""


def byte_size(size: int) -> str:
    """`812 bytes`, `12.3 KiB`, `3.75 MiB`."""
    if size < 1024:
        return f"{size} bytes"
    if size < 2**20:
        return f"{size / 1024:.1f} KiB"
    return f"{size / 2**20:.2f}".rstrip("0").rstrip(".") + " MiB"


def format_name(info: ImageInfo) -> str:
    return info.media_type.removeprefix("image/").upper()


def read_image(fd: int, source: str) -> LoadedImage | None:
    """The image in an open file (the descriptor stays the caller's), or None when the file's
    bytes are not a PNG, JPEG, GIF or WebP image. Raises ImageRefused for an image past the
    limits or with a damaged header, OSError when it cannot be read."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        return None  # a device, a pipe or a directory: never read as an image
    head = os.pread(fd, MAGIC_BYTES, 0)
    if not is_image(head):
        return None
    if info.st_size > MAX_IMAGE_BYTES:
        raise ImageRefused(
            f"{source} is an image of {byte_size(info.st_size)}, over the "
            f"{byte_size(MAX_IMAGE_BYTES)} providers accept (Anthropic's 5 MiB once encoded); "
            "send a smaller or compressed copy"
        )
    data = _read_all(fd, MAX_IMAGE_BYTES + 1)
    if len(data) > MAX_IMAGE_BYTES:  # it grew since the size was checked
        raise ImageRefused(f"{source} grew past {byte_size(MAX_IMAGE_BYTES)} while being read")
    return image_from_bytes(data, source)


def image_from_bytes(data: bytes, source: str) -> LoadedImage | None:
    """The image these bytes hold (a file's, or an MCP tool's result), or None when they are not
    a PNG, JPEG, GIF or WebP image. Raises ImageRefused past the limits or for a damaged
    header."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageRefused(
            f"{source} is an image of {byte_size(len(data))}, over the "
            f"{byte_size(MAX_IMAGE_BYTES)} providers accept (Anthropic's 5 MiB once encoded)"
        )
    try:
        found = sniff(data)
    except ImageFormatError as error:
        raise ImageRefused(f"{source} is not a usable image: {error}") from None
    if found is None:
        return None
    if max(found.width, found.height) > MAX_IMAGE_SIDE:
        raise ImageRefused(
            f"{source} is {found.width}×{found.height} pixels, over the {MAX_IMAGE_SIDE:,} a "
            "side providers accept (Anthropic's limit); send a scaled-down copy"
        )
    return LoadedImage(data, found, source)


def _read_all(fd: int, most: int) -> bytes:
    pieces: list[bytes] = []
    total = 0
    while total < most and (piece := os.pread(fd, most - total, total)):
        pieces.append(piece)
        total += len(piece)
    return b"".join(pieces)


def read_image_path(path: Path, source: str) -> LoadedImage | None:
    """read_image on a path the user gave (a pasted path may be anywhere: it is the user's own
    input). Raises OSError when it cannot be opened or read."""
    fd = os.open(path, OPEN_FLAGS)
    try:
        return read_image(fd, source)
    finally:
        os.close(fd)
