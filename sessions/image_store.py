"""The images of one session: private copies of every image attached, named by their content.

An image the user attaches (or read_file reads) is copied to `<session>/images/<sha256>.<ext>`
when it is attached, so the journal holds only a reference, and resuming, folding and the
archive still work after the original is edited, moved or deleted. The archive keeps its own
copies of the images of the messages it holds (`chunks/images/`, see copy_into).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable
from pathlib import Path

from sessions.atomic import atomic_write, fsync_dir
from sessions.image_ref import MEDIA_TYPES, STORED_NAME, ImageRef

IMAGES_DIR = "images"
# Only the session owner may list or read them: screenshots show whatever was on the screen.
DIR_MODE = 0o700


class ImageCopyError(OSError):
    """A stored copy that is missing, unreadable, or no longer the image it was."""


def stored_name(data: bytes, media_type: str) -> str:
    """The name an image's copy gets: its SHA-256, then its format's extension."""
    return f"{hashlib.sha256(data).hexdigest()}.{MEDIA_TYPES[media_type]}"


class SessionImages:
    """The copies in `directory` (the session's `images/` folder)."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.Lock()

    def path(self, image: ImageRef) -> Path:
        return self.directory / image.file

    def keep(
        self, data: bytes, *, media_type: str, width: int, height: int, source: str
    ) -> ImageRef:
        """Store a copy (once per content; private, atomic) and return its reference. Blocking
        (an fsync): call it in a thread. Raises OSError when it cannot be written."""
        image = ImageRef(
            stored_name(data, media_type), media_type, width, height, len(data), source
        )
        store(self.directory, image.file, data, self._lock)
        return image

    def read(self, image: ImageRef) -> bytes:
        """The copy's bytes, checked against its name (a copy changed on disk is not sent as
        the image it was). Raises ImageCopyError."""
        return read_copy(self.path(image), image)

    def copy_into(self, directory: Path, images: Iterable[ImageRef]) -> None:
        """Copy these images to another folder (the archive's, a fork's), skipping those there
        already and those missing here (the reference still says what was attached)."""
        for image in images:
            target = Path(directory) / image.file
            if target.exists():
                continue
            try:
                data = self.read(image)
            except ImageCopyError:
                continue
            store(Path(directory), image.file, data, self._lock)

    def copy_all_into(self, directory: Path) -> int:
        """Copy every stored image to another folder (a fork's inheritance); how many."""
        names = self.names()
        for name in names:
            store(Path(directory), name, (self.directory / name).read_bytes(), self._lock)
        return len(names)

    def names(self) -> list[str]:
        """The stored copies' names."""
        try:
            return sorted(n for n in os.listdir(self.directory) if STORED_NAME.match(n))
        except OSError:
            return []


def store(directory: Path, name: str, data: bytes, lock: threading.Lock) -> None:
    """Write one copy into `directory` (created private) unless a copy of that name is there."""
    with lock:
        if not directory.is_dir():
            directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            os.chmod(directory, DIR_MODE)  # mkdir's mode is filtered by the umask
            fsync_dir(directory.parent)
        if not (directory / name).is_file():
            atomic_write(directory / name, data)


def read_copy(path: Path, image: ImageRef) -> bytes:
    """A stored copy's bytes, if they still hash to its name. Raises ImageCopyError."""
    try:
        with path.open("rb") as handle:
            data = handle.read(image.size + 1)  # never more than the image it should be
    except OSError as error:
        why = "it is missing" if isinstance(error, FileNotFoundError) else error.strerror
        raise ImageCopyError(f"the session's copy of {image.name} cannot be read: {why}") from None
    if len(data) != image.size or stored_name(data, image.media_type) != image.file:
        raise ImageCopyError(f"the session's copy of {image.name} was changed on disk")
    return data
