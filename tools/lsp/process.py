"""A language server's process: started confined like a command (tools/sandbox/), its stderr
drained into a short tail, its stdout read with a bound on a message, killed as a group."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tools.sandbox.policy import Sandbox
from tools.shell import command_environment

# Bytes of one message a server may send: a references answer across a large project or a big
# file's symbols take a few megabytes; past 16 MiB the server is taken as broken (a hostile or
# runaway one could otherwise make pleat hold any amount of memory).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
# Bytes pleat may have written to a server that it has not read yet: a few whole documents
# (tools/lsp/manager.py sends at most MAX_DOCUMENT_CHARS of one, six bytes a character at worst
# in JSON). A server that leaves more unread has stopped reading: it is dropped rather than let
# what is sent to it pile up in pleat's memory, edit after edit.
MAX_UNSENT_BYTES = 32 * 1024 * 1024
# Lines of a server's stderr kept: what a failure line quotes from (the last one said), and
# enough for /lsp to show why a server died.
STDERR_TAIL_LINES = 20
# Bytes of one stderr line kept: a traceback's last line fits; a megabyte without a newline does
# not fill memory.
STDERR_LINE_BYTES = 1000
# The largest chunk read from stderr at a time (it is only drained, so the size is arbitrary).
STDERR_READ_BYTES = 65536


class MessageTooLarge(ConnectionError):
    """The server announced a message over MAX_MESSAGE_BYTES."""


class BoundedReader:
    """The server's stdout as pygls reads it (readline, readexactly), refusing a message whose
    announced length is over MAX_MESSAGE_BYTES (asyncio's readline is bounded already)."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        return await self._stream.readline()

    async def readexactly(self, count: int) -> bytes:
        if count > MAX_MESSAGE_BYTES:
            raise MessageTooLarge(f"a message of {count:,} bytes (over {MAX_MESSAGE_BYTES:,})")
        return await self._stream.readexactly(count)


class BoundedWriter:
    """The server's stdin as pygls writes to it, refusing to hold more than MAX_UNSENT_BYTES the
    server has not read: `stalled` is told (once) instead, and nothing more is written."""

    def __init__(self, stream: asyncio.StreamWriter, stalled: Callable[[], None]) -> None:
        self._stream = stream
        self._stalled: Callable[[], None] | None = stalled

    def write(self, data: bytes) -> None:
        if self._stalled is None:
            return
        if self._stream.transport.get_write_buffer_size() + len(data) > MAX_UNSENT_BYTES:
            stalled, self._stalled = self._stalled, None
            stalled()
            return
        self._stream.write(data)

    def close(self) -> None:
        self._stream.close()


@dataclass
class StderrTail:
    """The last lines a server wrote to stderr."""

    lines: deque[str] = field(default_factory=lambda: deque(maxlen=STDERR_TAIL_LINES))

    async def drain(self, stream: asyncio.StreamReader) -> None:
        """Read `stream` until it closes (a full pipe would stop the server), keeping lines."""
        pending = b""
        while chunk := await stream.read(STDERR_READ_BYTES):
            *whole, pending = (pending + chunk).split(b"\n")
            pending = pending[-STDERR_LINE_BYTES:]
            for line in whole:
                self.add(line)
        self.add(pending)

    def add(self, line: bytes) -> None:
        text = line[:STDERR_LINE_BYTES].decode("utf-8", errors="replace").strip()
        if text:
            self.lines.append(text)

    def last(self) -> str:
        """The last line written, or ""."""
        return self.lines[-1] if self.lines else ""


def server_environment(sandbox: Sandbox | None) -> dict[str, str]:
    """What a server runs with: the user's environment without secrets, as commands get it;
    confined, its temporary directory and caches (XDG_CACHE_HOME: jedi's, gopls's) in the
    sandbox's private directory, the only place outside the workspace it may write."""
    env = command_environment()
    if sandbox is None:
        return env
    return sandbox.environment(env) | {"XDG_CACHE_HOME": str(sandbox.temp / "cache")}


def confining(sandbox: Sandbox | None) -> Sandbox | None:
    """The sandbox a server runs in: the run's, when it is active (None: as the user, as
    commands run with the sandbox off)."""
    return sandbox if sandbox is not None and sandbox.active else None


async def spawn(
    argv: tuple[str, ...], workspace: Path, sandbox: Sandbox | None
) -> asyncio.subprocess.Process:
    """Start the server in `workspace`, in a process group of its own (killed whole), confined
    by `sandbox` when it is active. Raises OSError when it cannot be started."""
    confined = confining(sandbox)
    command, env = list(argv), server_environment(confined)
    if confined is not None:  # confined before the server's program runs
        command = confined.argv(command)
    return await asyncio.create_subprocess_exec(
        *command,
        cwd=workspace,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )


def kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the server and everything it started in its group (SIGKILL: a server holds nothing
    that must be saved, and one that hangs would ignore a polite request)."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
