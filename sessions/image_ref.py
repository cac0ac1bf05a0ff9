"""An image attached to a message: a reference to its copy in the session, never its bytes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

# The image formats pleat sends (what OpenAI, Anthropic and Gemini all accept), each with the
# extension of its stored copy.
MEDIA_TYPES = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
# What a stored copy is named: the SHA-256 of its bytes (content-addressed, so the same image
# attached twice is stored once) and its format's extension. Nothing else is ever a file name,
# so a damaged or hostile record cannot point anywhere but into the images folder.
STORED_NAME = re.compile(r"[0-9a-f]{64}\.(png|jpg|gif|webp)\Z")
# The largest side a record may claim: the formats' own ceiling (PNG and JPEG store sides in
# 31 and 16 bits; 2^31 - 1 bounds them all). Anything past it is a damaged record.
MAX_RECORDED_SIDE = 2**31 - 1
# The largest stored size a record may claim: far above what pleat stores (a few megabytes, see
# tools/image_file.py), it only refuses absurd numbers from a damaged record.
MAX_RECORDED_BYTES = 2**40
# Characters of the original path kept for display: a path the user pasted is shown back, and
# 4096 is PATH_MAX on Linux, so any real path fits.
MAX_SOURCE_CHARS = 4096


@dataclass(frozen=True)
class ImageRef:
    """An image stored in the session (`images/<file>`), with what display and token counts
    need: its format, its size in pixels and bytes, and the path it came from."""

    file: str
    media_type: str
    width: int
    height: int
    size: int  # bytes of the stored file
    source: str  # the path the user or the tool gave, for display only (never opened again)

    @property
    def name(self) -> str:
        """The original file's name, for a short label (the whole source if it has none)."""
        return PurePath(self.source).name or self.source

    @property
    def format(self) -> str:
        """PNG, JPEG, GIF or WEBP."""
        return self.media_type.removeprefix("image/").upper()

    def label(self) -> str:
        """`shot.png 800×600`: how the TUI, headless output and the model name it."""
        return f"{self.name} {self.width}×{self.height}"

    def to_record(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "media_type": self.media_type,
            "width": self.width,
            "height": self.height,
            "size": self.size,
            "source": self.source,
        }

    @classmethod
    def from_record(cls, record: Any) -> ImageRef:
        """The reference a record describes; ValueError for anything this version would not
        have written (a damaged journal line or chunk)."""
        if not isinstance(record, dict):
            raise ValueError("an image reference that is not an object")
        file, media_type = record.get("file"), record.get("media_type")
        if not isinstance(file, str) or STORED_NAME.match(file) is None:
            raise ValueError("an image reference with a bad file name")
        if media_type not in MEDIA_TYPES or not file.endswith("." + MEDIA_TYPES[media_type]):
            raise ValueError("an image reference with a bad media type")
        width = _positive(record.get("width"), MAX_RECORDED_SIDE, "dimensions")
        height = _positive(record.get("height"), MAX_RECORDED_SIDE, "dimensions")
        size = _positive(record.get("size"), MAX_RECORDED_BYTES, "size")
        source = record.get("source")
        if not isinstance(source, str) or len(source) > MAX_SOURCE_CHARS:
            raise ValueError("an image reference with a bad source path")
        return cls(file, media_type, width, height, size, source)


def _positive(value: Any, most: int, what: str) -> int:
    if type(value) is not int or not 0 < value <= most:
        raise ValueError(f"an image reference with a bad {what}")
    return value
