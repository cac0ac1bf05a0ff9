"""Small image files made byte by byte for the tests (no imaging library): a PNG any viewer opens,
and GIF, JPEG and WebP files whose headers are those of real files (the pixels after them are
not what those formats' decoders would accept, which pleat never decodes)."""

from __future__ import annotations

import struct
import zlib


def png(width: int = 3, height: int = 2, seed: int = 0) -> bytes:
    """A valid RGB PNG of width × height, its pixels varied by `seed` (different seeds, different
    files: content-addressed copies are told apart)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    row = bytes((seed + x) % 256 for x in range(width * 3))
    pixels = zlib.compress(b"".join(b"\x00" + row for _ in range(height)))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def gif(width: int = 1, height: int = 1) -> bytes:
    """A GIF89a: logical screen, a two-colour table, one image of the same size, trailer."""
    screen = b"GIF89a" + struct.pack("<HH", width, height) + b"\x80\x00\x00"
    colours = b"\x00\x00\x00\xff\xff\xff"
    image = b"\x2c" + struct.pack("<HHHH", 0, 0, width, height) + b"\x00"
    return screen + colours + image + b"\x02\x02\x44\x01\x00" + b"\x3b"


def jpeg(width: int = 16, height: int = 8, exif_bytes: int = 0) -> bytes:
    """A baseline JFIF: SOI, APP0, an optional APP1 (EXIF-sized padding before the frame, as
    cameras write), a quantization table, SOF0 with the size, then scan data and EOI."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    app1 = b""
    if exif_bytes:
        app1 = b"\xff\xe1" + struct.pack(">H", exif_bytes + 2) + b"\x00" * exif_bytes
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\x00" + bytes(range(1, 65))
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return (
        b"\xff\xd8"
        + app0
        + app1
        + dqt
        + sof
        + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00"
        + (b"\x00" * 8 + b"\xff\xd9")
    )


def _riff(chunk: bytes, body: bytes) -> bytes:
    payload = b"WEBP" + chunk + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", len(payload)) + payload


def webp_lossy(width: int = 5, height: int = 4) -> bytes:
    """VP8: a key frame's tag, start code, 14-bit width and height."""
    body = b"\x30\x01\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height) + b"\x00" * 10
    return _riff(b"VP8 ", body)


def webp_lossless(width: int = 7, height: int = 9) -> bytes:
    """VP8L: signature 0x2f, then width-1 and height-1 in 14 bits each."""
    bits = (width - 1) | ((height - 1) << 14)
    return _riff(b"VP8L", b"\x2f" + struct.pack("<I", bits) + b"\x00" * 4)


def webp_extended(width: int = 1000, height: int = 600) -> bytes:
    """VP8X: flags, then canvas width-1 and height-1 in 24 bits each."""
    size = (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return _riff(b"VP8X", b"\x00\x00\x00\x00" + size)
