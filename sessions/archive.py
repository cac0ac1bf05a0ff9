"""The chunk archive of one session: folded messages kept verbatim as markdown files on disk."""

# The store: numbering, listing, merging, repair, atomic private writes. The file format itself
# (front matter, message blocks) is sessions/chunk_format.py's and sessions/chunk_blocks.py's.

from __future__ import annotations

import dataclasses
import os
import re
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessions.atomic import atomic_write, fsync_dir
from sessions.chunk_blocks import CHUNK_IMAGES_DIR, ChunkFormatError, heading
from sessions.chunk_format import (
    ENCODING,
    ENCODING_ERRORS,
    ChunkInfo,
    info_from_fields,
    parse_chunk,
    read_front_matter,
    read_text,
    render_chunk,
)
from sessions.image_store import SessionImages
from sessions.messages import Message
from sessions.redact import KnownSecrets

# What the rest of pleat imports from here: the store, the index entry and the format's error.
__all__ = ["ChunkArchive", "ChunkFormatError", "ChunkInfo"]

# Chunk files are `chunk-0001.md`, ...: four digits keep a directory listing in order for any
# realistic session; larger numbers simply get more digits.
CHUNK_NAME_FORMAT = "chunk-{:04d}.md"
CHUNK_NAME = re.compile(r"chunk-(\d+)\.md\Z")
# Only the session owner may list the archive (its files get sessions.atomic.FILE_MODE).
DIR_MODE = 0o700


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ChunkArchive:
    """The chunks of one session in `directory` (the session's `chunks/` folder)."""

    def __init__(self, directory: Path, session_id: str) -> None:
        self.directory = Path(directory)
        self.session_id = session_id
        # Front matter of files already seen, keyed by (path, mtime_ns, size): a changed
        # file gets a new key, so chunks() re-reads only what changed.
        self._cache: dict[tuple[Path, int, int], ChunkInfo] = {}
        # Reentrant: merge_into_last falls back to write_chunk while holding it.
        self._lock = threading.RLock()
        # Values never written (the configured API key; agent.assemble sets them).
        self.secrets = KnownSecrets()
        # The session's images (sessions.store sets them): a chunk keeps its own copies of the
        # images of the messages it holds, in `images/` beside it, which its blocks link to.
        self.images: SessionImages | None = None

    def path(self, number: int) -> Path:
        return self.directory / CHUNK_NAME_FORMAT.format(number)

    def _numbered_files(self) -> list[tuple[int, Path]]:
        try:
            entries = list(os.scandir(self.directory))
        except OSError:  # no directory yet, or not readable: no chunks to show
            return []
        found = []
        for entry in entries:
            match = CHUNK_NAME.match(entry.name)
            if match is not None:
                found.append((int(match.group(1)), Path(entry.path)))
        return sorted(found)

    def chunks(self) -> list[ChunkInfo]:
        """Readable chunks, ascending by number; broken or unreadable files are skipped."""
        result: list[ChunkInfo] = []
        cache: dict[tuple[Path, int, int], ChunkInfo] = {}
        for number, path in self._numbered_files():
            try:
                stat = path.stat()
                key = (path, stat.st_mtime_ns, stat.st_size)
                info = self._cache.get(key)
                if info is None:
                    info = read_front_matter(path, number)
            except (OSError, ValueError):
                continue
            cache[key] = info
            result.append(info)
        self._cache = cache
        return result

    def read_parts(self, number: int) -> tuple[list[Message], list[Message]]:
        """(folded messages, shrunk originals) of a chunk. Raises OSError or ChunkFormatError."""
        _, folded, shrunk = parse_chunk(read_text(self.path(number)))
        return folded, shrunk

    def read_messages(self, number: int) -> list[Message]:
        """All messages of a chunk: the folded ones, then the shrunk originals."""
        folded, shrunk = self.read_parts(number)
        return folded + shrunk

    def find(self, message_id: str) -> tuple[int, Message] | None:
        """The oldest chunk holding the message, and its archived copy. Within one chunk the
        shrunk original is preferred to a folded stub of the same message."""
        marker = heading(message_id)
        for info in self.chunks():
            try:
                text = read_text(info.path)
                if marker not in text:
                    continue
                _, folded, shrunk = parse_chunk(text)
            except (OSError, ValueError):
                continue
            for message in (*shrunk, *folded):
                if message.id == message_id:
                    return info.number, message
        return None

    def write_chunk(
        self,
        messages: Sequence[Message],
        *,
        topics: str,
        tokens: int,
        shrunk: Sequence[Message] = (),
    ) -> ChunkInfo:
        """A new chunk numbered one past the highest chunk file present (broken ones count)."""
        if not messages and not shrunk:
            raise ValueError("a chunk needs at least one message")
        with self._lock:
            self._ensure_directory()
            files = self._numbered_files()
            number = files[-1][0] + 1 if files else 1
            info = ChunkInfo(
                number=number,
                path=self.path(number),
                topics=topics,
                first_id=messages[0].id if messages else "",
                last_id=messages[-1].id if messages else "",
                message_count=len(messages),
                tokens=tokens,
                created=_now(),
                merged=(),
                session=self.session_id,
                shrunk_count=len(shrunk),
            )
            return self._store(info, messages, shrunk)

    def merge_into_last(
        self,
        messages: Sequence[Message],
        *,
        topics: str,
        tokens: int,
        shrunk: Sequence[Message] = (),
    ) -> ChunkInfo:
        """Append to the newest chunk (it continues the same task): new topics, summed tokens,
        a merge time recorded. Shrunk originals already in that chunk are not repeated. With no
        chunk, or a newest chunk that cannot be read, a new chunk is written instead."""
        with self._lock:
            files = self._numbered_files()
            if not files:
                return self.write_chunk(messages, topics=topics, tokens=tokens, shrunk=shrunk)
            number, path = files[-1]
            try:
                fields, old_folded, old_shrunk = parse_chunk(read_text(path))
                old = info_from_fields(fields, number, path)
            except (OSError, ValueError):
                return self.write_chunk(messages, topics=topics, tokens=tokens, shrunk=shrunk)
            seen = {m.id for m in old_shrunk}
            new_shrunk = [*old_shrunk, *(m for m in shrunk if m.id not in seen)]
            folded = [*old_folded, *messages]
            info = ChunkInfo(
                number=old.number,
                path=old.path,
                topics=topics,
                first_id=folded[0].id if folded else "",
                last_id=folded[-1].id if folded else "",
                message_count=len(folded),
                tokens=old.tokens + tokens,
                created=old.created,
                merged=(*old.merged, _now()),
                session=old.session,
                shrunk_count=len(new_shrunk),
            )
            return self._store(info, folded, new_shrunk)

    def copy_from(self, other: ChunkArchive) -> ChunkInfo | None:
        """Copy every chunk of another session's archive here (a fork's inheritance); returns
        the newest copied chunk. Copies are written like chunks: atomic, private."""
        with self._lock:
            self._ensure_directory()
            newest = None
            for info in other.chunks():
                data = info.path.read_bytes()
                atomic_write(self.path(info.number), data)
                newest = info
            theirs = SessionImages(other.directory / CHUNK_IMAGES_DIR)
            theirs.copy_all_into(self.directory / CHUNK_IMAGES_DIR)
            return next((c for c in self.chunks() if newest and c.number == newest.number), None)

    def reconcile(self, recorded: dict[str, Any] | None) -> list[str]:
        """Undo archive writes the journal never recorded (a crash between writing a chunk and
        swapping in the rebuilt history): chunk files past the recorded one are set aside
        (renamed with a leading dot, which chunks() ignores), and a recorded chunk that grew
        by an unrecorded merge is cut back. Returns one note per repair."""
        notes: list[str] = []
        number = int(recorded["number"]) if recorded else 0
        with self._lock:
            for found, path in self._numbered_files():
                if found > number:
                    os.replace(path, path.with_name(f".unrecorded-{path.name}"))
                    notes.append(f"chunk {found} was written but never recorded: set aside")
            if not recorded:
                return notes
            path = self.path(number)
            try:
                fields, folded, shrunk = parse_chunk(read_text(path))
                old = info_from_fields(fields, number, path)
            except (OSError, ValueError):
                return notes
            keep, keep_shrunk = int(recorded["messages"]), int(recorded["shrunk"])
            if len(folded) <= keep and len(shrunk) <= keep_shrunk:
                return notes
            folded, shrunk = folded[:keep], shrunk[:keep_shrunk]
            info = dataclasses.replace(
                old,
                topics=str(recorded.get("topics", old.topics)),
                first_id=folded[0].id if folded else "",
                last_id=folded[-1].id if folded else "",
                message_count=len(folded),
                tokens=int(recorded.get("tokens", old.tokens)),
                merged=old.merged[: int(recorded.get("merges", len(old.merged)))],
                shrunk_count=len(shrunk),
            )
            self._store(info, folded, shrunk)
            notes.append(f"chunk {number} held an unrecorded merge: cut back")
        return notes

    # -- helpers ---------------------------------------------------------------------------

    def _ensure_directory(self) -> None:
        if self.directory.is_dir():
            return
        self.directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        os.chmod(self.directory, DIR_MODE)  # mkdir's mode is filtered by the umask
        fsync_dir(self.directory.parent)

    def _store(
        self, info: ChunkInfo, folded: Sequence[Message], shrunk: Sequence[Message]
    ) -> ChunkInfo:
        folded = [self.secrets.message(m) for m in folded]
        shrunk = [self.secrets.message(m) for m in shrunk]
        if self.images is not None:  # the images first: the chunk links to them
            attached = [image for m in (*folded, *shrunk) for image in m.images]
            self.images.copy_into(self.directory / CHUNK_IMAGES_DIR, attached)
        data = render_chunk(info, folded, shrunk).encode(ENCODING, ENCODING_ERRORS)
        atomic_write(info.path, data)
        stat = info.path.stat()
        self._cache[(info.path, stat.st_mtime_ns, stat.st_size)] = info
        return info
