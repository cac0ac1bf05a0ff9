"""Which image a file holds (PNG, JPEG, GIF, WebP) and its size in pixels, from its first bytes.

The format comes from the magic bytes, never the extension (a text file renamed shot.png is not
an image; a PNG named shot.jpg is still a PNG). The dimensions come from the header, parsed here
rather than by an imaging library: the four headers are a few fixed fields (JPEG's needs a walk
over its segments), pleat never decodes pixels (the provider does), and a dependency such as
Pillow would add megabytes and native code for what is about sixty lines. Every read is bounds
checked: a truncated or hostile header is refused with a reason, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
GIF_MAGICS = (b"GIF87a", b"GIF89a")
JPEG_MAGIC = b"\xff\xd8\xff"
# RIFF container, then the WEBP form type at byte 8.
RIFF_MAGIC, WEBP_FORM = b"RIFF", b"WEBP"
# Bytes enough for every format's magic: a caller sniffs this much before reading a file whole.
MAGIC_BYTES = 16
# JPEG markers of a start-of-frame segment (the one holding the size): SOF0-SOF15 except DHT
# (C4), JPG (C8) and DAC (CC), which share the range but are other segments.
JPEG_FRAME_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# JPEG markers with no length after them: TEM and the restart markers RST0-RST7.
JPEG_BARE_MARKERS = frozenset({0x01, *range(0xD0, 0xD8)})
# The WebP VP8 key frame's start code, before its 14-bit width and height.
VP8_START_CODE = b"\x9d\x01\x2a"
# The WebP lossless (VP8L) bitstream's signature byte.
VP8L_SIGNATURE = 0x2F


@dataclass(frozen=True)
class ImageInfo:
    """An image's format and size in pixels."""

    media_type: str
    width: int
    height: int


class ImageFormatError(ValueError):
    """Magic bytes of an image format, but a header that is truncated or makes no sense."""


def is_image(head: bytes) -> bool:
    """Whether these first bytes are those of a PNG, JPEG, GIF or WebP file."""
    return head.startswith((PNG_MAGIC, JPEG_MAGIC, *GIF_MAGICS)) or (
        head[:4] == RIFF_MAGIC and head[8:12] == WEBP_FORM
    )


def sniff(data: bytes) -> ImageInfo | None:
    """The image these bytes hold, or None when they are not one of the four formats. Raises
    ImageFormatError when the magic bytes say image but the header is damaged."""
    if data.startswith(PNG_MAGIC):
        return _checked("image/png", *_png(data))
    if data.startswith(GIF_MAGICS):
        need(data, 10, "GIF")
        width, height = int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
        return _checked("image/gif", width, height)
    if data.startswith(JPEG_MAGIC):
        return _checked("image/jpeg", *_jpeg(data))
    if data[:4] == RIFF_MAGIC and data[8:12] == WEBP_FORM:
        return _checked("image/webp", *_webp(data))
    return None


def need(data: bytes, end: int, what: str) -> None:
    if len(data) < end:
        raise ImageFormatError(f"a truncated {what} header")


def _checked(media_type: str, width: int, height: int) -> ImageInfo:
    if width <= 0 or height <= 0:
        raise ImageFormatError(f"a {media_type.removeprefix('image/').upper()} of size 0")
    return ImageInfo(media_type, width, height)


def _png(data: bytes) -> tuple[int, int]:
    """The IHDR chunk comes first: length 13, type, width and height as 32-bit big-endian."""
    need(data, 24, "PNG")
    if data[12:16] != b"IHDR":
        raise ImageFormatError("a PNG whose first chunk is not its header")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _jpeg(data: bytes) -> tuple[int, int]:
    """Walk the segments after the SOI marker to the first start-of-frame, whose body holds
    precision (1 byte), height and width (2 bytes each, big-endian)."""
    pos = 2
    while True:
        need(data, pos + 2, "JPEG")
        if data[pos] != 0xFF:
            raise ImageFormatError("a JPEG whose segments do not follow each other")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill bytes before a marker
            pos += 1
            continue
        if marker in JPEG_BARE_MARKERS:
            pos += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, or scan data, before any frame header
            raise ImageFormatError("a JPEG without a frame header")
        need(data, pos + 4, "JPEG")
        length = int.from_bytes(data[pos + 2 : pos + 4], "big")
        if length < 2:
            raise ImageFormatError("a JPEG segment of impossible length")
        if marker in JPEG_FRAME_MARKERS:
            need(data, pos + 9, "JPEG")
            height = int.from_bytes(data[pos + 5 : pos + 7], "big")
            return int.from_bytes(data[pos + 7 : pos + 9], "big"), height
        pos += 2 + length


def _webp(data: bytes) -> tuple[int, int]:
    """The first chunk after the RIFF header: VP8X (extended: 24-bit canvas size less one),
    VP8L (lossless: 14-bit sizes less one after a signature) or VP8 (lossy: 14-bit sizes after
    a key frame's start code)."""
    need(data, 16, "WebP")
    chunk = data[12:16]
    if chunk == b"VP8X":
        need(data, 30, "WebP")
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8L":
        need(data, 25, "WebP")
        if data[20] != VP8L_SIGNATURE:
            raise ImageFormatError("a lossless WebP without its signature")
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 ":
        need(data, 30, "WebP")
        if data[23:26] != VP8_START_CODE:
            raise ImageFormatError("a lossy WebP without a key frame")
        width = int.from_bytes(data[26:28], "little") & 0x3FFF
        return width, int.from_bytes(data[28:30], "little") & 0x3FFF
    raise ImageFormatError("a WebP with an unknown first chunk")
