"""Helpers for the sandbox tests: a TCP server on 127.0.0.1 that counts the connections it
accepts, the program that tries to connect to it, and the mark for machines without a sandbox."""

from __future__ import annotations

import socket
from typing import Self

import pytest

from tools.sandbox.policy import machine_support

# A Python program that connects to 127.0.0.1 on the port given as its argument (exit 0 when it
# got through, a traceback otherwise).
CONNECT = (
    "import socket, sys\n"
    "socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=10).close()\n"
)
# The sandbox tests need a kernel that enforces it (Landlock, and namespaces or TCP rules):
# elsewhere they are skipped, and tests/e2e/test_sandbox.py's fallback test still runs.
needs_sandbox = pytest.mark.skipif(
    not (machine_support().filesystem and machine_support().network),
    reason="this kernel cannot enforce the sandbox",
)


class TcpListener:
    """A TCP server on a free loopback port for the span of a `with` block. Nobody serves it:
    a connection the kernel completed waits in its queue, so `accepted` (which takes what
    waits there) counts every connection made so far, with no thread racing the test."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.setblocking(False)
        self.port: int = self._socket.getsockname()[1]
        self._count = 0

    @property
    def accepted(self) -> int:
        while True:
            try:
                connection, _ = self._socket.accept()
            except BlockingIOError:
                return self._count
            self._count += 1
            connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self._socket.close()
