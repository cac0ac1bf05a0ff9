"""A server's stderr, captured: read from a pipe in the background, its last lines kept for /mcp.

A stdio server inherits no terminal: its stderr is a pipe pleat reads, so its logs (often coloured
tracebacks) never land on the TUI's screen or among the headless output. Only the last lines are
kept, each cut to a length, so a chatty server costs a constant amount of memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from typing import TextIO

# Lines kept: enough to show why a server failed (the end of a traceback) in /mcp.
KEPT_LINES = 20
# Characters of one kept line: a log line is rarely longer; a minified dump is cut.
MAX_LINE_CHARS = 400


class _Reader(asyncio.Protocol):
    def __init__(self, tail: StderrTail) -> None:
        self.tail = tail

    def data_received(self, data: bytes) -> None:
        self.tail.add(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.tail.add(b"\n")  # a last line without its newline still counts
        self.tail.ended.set()


class StderrTail:
    """The last lines one server process wrote to its stderr."""

    def __init__(self) -> None:
        self._lines: deque[str] = deque(maxlen=KEPT_LINES)
        self._partial = ""
        self._transport: asyncio.ReadTransport | None = None
        self.ended = asyncio.Event()  # set when every writer has closed the pipe

    def add(self, data: bytes) -> None:
        """Take bytes the server wrote: complete lines are kept, the rest waits for its end."""
        text = self._partial + data.decode("utf-8", errors="replace")
        *complete, self._partial = text.split("\n")
        self._partial = self._partial[:MAX_LINE_CHARS]
        for line in complete[-KEPT_LINES:]:
            line = line.rstrip("\r")
            if line.strip():
                self._lines.append(line[:MAX_LINE_CHARS])

    def lines(self) -> list[str]:
        return list(self._lines)

    def last(self) -> str | None:
        """The last line written, if any (what a failure is usually explained by)."""
        return self._lines[-1] if self._lines else None

    async def open(self) -> TextIO:
        """A new pipe whose read end is read into this tail on the running loop; returns the
        write end for the server process (the caller closes its copy once the process has it)."""
        read_fd, write_fd = os.pipe()
        reader = os.fdopen(read_fd, "rb", buffering=0)
        try:
            loop = asyncio.get_running_loop()
            transport, _ = await loop.connect_read_pipe(lambda: _Reader(self), reader)
        except BaseException:
            reader.close()
            os.close(write_fd)
            raise
        self.close()
        self.ended.clear()
        self._transport = transport
        return os.fdopen(write_fd, "w")

    def close(self) -> None:
        """Stop reading (the pipe's read end is closed)."""
        if self._transport is not None:
            with contextlib.suppress(Exception):
                self._transport.close()
            self._transport = None
