"""Image sniffing: the format from the magic bytes, the size from the header, hostile bytes refused
with a reason; reading an image file within the providers' limits."""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import pytest

from tests.support import images
from tools.image_file import MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, ImageRefused, read_image_path
from tools.image_format import ImageFormatError, ImageInfo, is_image, sniff

# Every format the tests make, with the size it was made at.
SAMPLES = [
    pytest.param(images.png(800, 600), ImageInfo("image/png", 800, 600), id="png"),
    pytest.param(images.gif(300, 200), ImageInfo("image/gif", 300, 200), id="gif"),
    pytest.param(images.jpeg(1920, 1080), ImageInfo("image/jpeg", 1920, 1080), id="jpeg"),
    pytest.param(
        images.jpeg(64, 48, exif_bytes=20_000), ImageInfo("image/jpeg", 64, 48), id="jpeg-exif"
    ),
    pytest.param(images.webp_lossy(5, 4), ImageInfo("image/webp", 5, 4), id="webp-lossy"),
    pytest.param(images.webp_lossless(7, 9), ImageInfo("image/webp", 7, 9), id="webp-lossless"),
    pytest.param(
        images.webp_extended(1000, 600), ImageInfo("image/webp", 1000, 600), id="webp-extended"
    ),
]
# Seeded random inputs per magic prefix: enough to meet every branch of the header parsers.
FUZZ_CASES = 300


@pytest.mark.parametrize(("data", "expected"), SAMPLES)
def test_each_format_is_known_by_its_bytes_with_its_size(data: bytes, expected: ImageInfo) -> None:
    assert is_image(data[:16])
    assert sniff(data) == expected


def test_text_is_not_an_image_whatever_its_name(tmp_path: Path) -> None:
    fake = tmp_path / "shot.png"
    fake.write_text("not a picture, only words\n")
    assert sniff(fake.read_bytes()) is None
    assert read_image_path(fake, "shot.png") is None


def test_a_png_named_jpg_is_a_png(tmp_path: Path) -> None:
    misnamed = tmp_path / "photo.jpg"
    misnamed.write_bytes(images.png(10, 20))
    loaded = read_image_path(misnamed, "photo.jpg")
    assert loaded is not None and loaded.info == ImageInfo("image/png", 10, 20)


@pytest.mark.parametrize(("data", "expected"), SAMPLES)
def test_every_truncation_is_refused_or_still_right(data: bytes, expected: ImageInfo) -> None:
    """Cut anywhere, a file is not an image (too short for its magic), a damaged one, or (cut
    past its header) still the same image: never another answer, never another exception."""
    for end in range(len(data)):
        try:
            found = sniff(data[:end])
        except ImageFormatError as error:
            assert str(error)
            continue
        assert found is None or found == expected, end


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (images.png(1, 1)[:12] + b"IDAT" + images.png(1, 1)[16:], "first chunk"),
        (images.png(1, 1)[:16] + b"\x00" * 8 + images.png(1, 1)[24:], "size 0"),
        (b"\xff\xd8\xff\xe0\x00\x01", "impossible length"),  # a segment shorter than its length
        (b"\xff\xd8\xff\xda\x00\x08" + b"\x00" * 8, "without a frame header"),  # scan before SOF
        (b"\xff\xd8\xff\xd9", "without a frame header"),
        (b"\xff\xd8\xff\xe0\x00\x10" + b"\x00" * 14 + b"\x12\x34", "do not follow"),
        (images.webp_lossy()[:23] + b"\x00\x00\x00" + images.webp_lossy()[26:], "key frame"),
        (images.webp_lossless()[:20] + b"\x00" + images.webp_lossless()[21:], "signature"),
        (images.webp_lossy().replace(b"VP8 ", b"ABCD"), "unknown first chunk"),
        (images.gif(0, 5), "size 0"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_hostile_headers_are_refused_with_a_reason(data: bytes, why: str) -> None:
    with pytest.raises(ImageFormatError, match=why):
        sniff(data)


def test_a_jpeg_walk_skips_fill_bytes_and_bare_markers() -> None:
    data = images.jpeg(33, 44)
    padded = data[:2] + b"\xff\xff\xff" + b"\xff\xd0" + data[2:]  # fill bytes, then RST0
    assert sniff(padded) == ImageInfo("image/jpeg", 33, 44)


@pytest.mark.parametrize(
    "magic",
    [b"\x89PNG\r\n\x1a\n", b"GIF89a", b"\xff\xd8\xff", b"RIFF"],
    ids=["png", "gif", "jpeg", "webp"],
)
def test_random_bytes_after_a_magic_never_crash(magic: bytes) -> None:
    generator = random.Random(magic)
    for _ in range(FUZZ_CASES):
        body = bytes(generator.randrange(256) for _ in range(generator.randrange(40)))
        if magic == b"RIFF":
            body = b"\x00\x00\x00\x00WEBP" + generator.choice([b"VP8 ", b"VP8L", b"VP8X"]) + body
        try:
            found = sniff(magic + body)
        except ImageFormatError:
            continue
        assert found is None or (found.width > 0 and found.height > 0)


def test_an_image_over_the_byte_limit_is_refused_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    with big.open("wb") as handle:
        handle.write(images.png(10, 10))
        handle.truncate(MAX_IMAGE_BYTES + 1)  # sparse: nothing past the header is written
    with pytest.raises(ImageRefused, match=r"big\.png is an image of 3\.75 MiB, over the 3\.75"):
        read_image_path(big, "big.png")


def test_an_image_over_the_side_limit_is_refused(tmp_path: Path) -> None:
    tall = tmp_path / "tall.gif"
    tall.write_bytes(images.gif(10, MAX_IMAGE_SIDE + 1))
    with pytest.raises(ImageRefused, match=r"10×8001 pixels, over the 8,000 a side"):
        read_image_path(tall, "tall.gif")


def test_a_fifo_named_like_an_image_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    assert read_image_path(fifo, "pipe.png") is None  # returns at once: never blocks on it


def test_an_absurd_declared_size_is_read_and_then_refused(tmp_path: Path) -> None:
    header = struct.pack(">II", 0xFFFFFFFF, 1)
    data = images.png(1, 1)[:16] + header + images.png(1, 1)[24:]
    assert sniff(data) == ImageInfo("image/png", 0xFFFFFFFF, 1)  # what the header says ...
    (tmp_path / "absurd.png").write_bytes(data)
    with pytest.raises(ImageRefused, match=r"4294967295×1 pixels, over the 8,000 a side"):
        read_image_path(tmp_path / "absurd.png", "absurd.png")  # ... is never sent
