"""A command's output held in memory: its first and last bytes, the middle counted."""

from __future__ import annotations

from collections import deque

# Output bytes held in memory from the start and from the end of a command's output: 8 MiB in
# all covers any build or test log whole (the registry then cuts it to the model's budget and
# keeps it for paging, tools/output_guard.py); a command printing more (`yes`, a runaway loop)
# loses its middle, which is counted and said.
HEAD_BYTES = 4 * 1024 * 1024
TAIL_BYTES = 4 * 1024 * 1024


class CappedOutput:
    """Keeps the first and last bytes of a stream and counts what falls in between. The tail is
    a queue of chunks, so a command printing gigabytes costs a constant amount per chunk."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_bytes = 0
        self.total = 0
        self.closed = False  # the command went to the background: its spool file holds the rest

    def add(self, chunk: bytes) -> None:
        if self.closed:
            return
        self.total += len(chunk)
        room = HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail.append(chunk)
        self.tail_bytes += len(chunk)
        while self.tail_bytes - len(self.tail[0]) >= TAIL_BYTES:
            self.tail_bytes -= len(self.tail.popleft())

    def text(self) -> str:
        tail = b"".join(self.tail)
        if self.tail_bytes > TAIL_BYTES:
            tail = tail[-TAIL_BYTES:]
        omitted = self.total - len(self.head) - len(tail)
        if omitted <= 0:
            return (bytes(self.head) + tail).decode("utf-8", errors="replace")
        head_text = self.head.decode("utf-8", errors="replace")
        tail_text = tail.decode("utf-8", errors="replace")
        gap = f"[... {omitted:,} bytes of output were not kept (too much) ...]"
        return f"{head_text}\n{gap}\n{tail_text}"
