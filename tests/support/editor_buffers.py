"""An editor held in memory, the counterpart of the file tools' EditorFiles (tools/editor_files.py):
its buffers by absolute path, every read and write it was asked for, and a failure on demand."""

from __future__ import annotations

from pathlib import Path

from tools.editor_files import EditorFileError


class BufferEditor:
    """EditorFiles over a dict of buffers: a path it has no buffer for does not exist."""

    def __init__(self, buffers: dict[Path, str] | None = None) -> None:
        self.buffers: dict[Path, str] = dict(buffers or {})
        self.asked: list[tuple[str, Path]] = []  # every call, failed or not: ("read", path)...
        self.writes: list[tuple[Path, str]] = []  # the writes done
        # What a read or a write fails with instead (None: they work).
        self.read_failure: str | None = None
        self.write_failure: str | None = None

    async def read_text(self, path: Path) -> str | None:
        self.asked.append(("read", path))
        if self.read_failure is not None:
            raise EditorFileError(self.read_failure)
        return self.buffers.get(path)

    async def write_text(self, path: Path, text: str) -> None:
        self.asked.append(("write", path))
        if self.write_failure is not None:
            raise EditorFileError(self.write_failure)
        self.writes.append((path, text))
        self.buffers[path] = text
