"""A loopback web server for web_fetch's tests: pages by path, and the ways servers misbehave.

Each route gives a status, headers and a body, or stalls: it sends its headers and a few bytes,
then nothing until the client hangs up (which the test can wait for). Every request is
recorded with its target and headers, so a test can tell what web_fetch asked for, and what it
never asked for.
"""

from __future__ import annotations

import select
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests.support.loopback_server import LoopbackServer

# Bytes written at a time: a big body goes out in pieces, as a real server sends it.
PIECE_BYTES = 64 * 1024
# Seconds a stalled route waits for its client to hang up before giving up itself: far past
# any time limit a test sets, so only a client that never hangs up reaches it.
STALL_GUARD_SECONDS = 60.0


@dataclass
class Route:
    """What the server answers on one path."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    stall: bool = False  # send the headers and a few bytes, then wait for the client to leave


@dataclass(frozen=True)
class Seen:
    """One request as the server saw it: its target (a path, or a whole URL through a proxy)
    and its headers (names in lower case)."""

    target: str
    headers: dict[str, str]


class WebServer(LoopbackServer):
    """Serves `routes` (path -> Route; a missing path is a 404) on a loopback port."""

    def __init__(self, routes: dict[str, Route] | None = None) -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        self.requests: list[Seen] = []
        self.stalled = threading.Event()  # a stalled route has sent its headers
        self.hung_up = threading.Event()  # the client of a stalled route closed its connection
        super().__init__(_handler(self))

    def targets(self) -> list[str]:
        return [seen.target for seen in self.requests]

    def reset(self, routes: dict[str, Route]) -> None:
        """Serve `routes` from now on, as a new server would (one server serves a whole test
        module: stopping one takes half a second)."""
        self.routes = dict(routes)
        self.requests.clear()
        self.stalled.clear()
        self.hung_up.clear()


def _handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            server.requests.append(Seen(self.path, headers))
            route = server.routes.get(self.path)
            if route is None:
                route = Route(b"no such page", 404, {"Content-Type": "text/plain"})
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.stall:
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                self._stall()
                return
            if not any(name.lower() == "content-length" for name in route.headers):
                self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            try:
                for start in range(0, len(route.body), PIECE_BYTES):
                    self.wfile.write(route.body[start : start + PIECE_BYTES])
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading at its size limit and hung up

        def _stall(self) -> None:
            self.wfile.write(b"<html><body>")
            self.wfile.flush()
            server.stalled.set()
            deadline = time.monotonic() + STALL_GUARD_SECONDS
            while time.monotonic() < deadline:
                readable, _, _ = select.select([self.connection], [], [], 0.05)
                if not readable:
                    continue
                try:
                    if not self.connection.recv(1):
                        break
                except OSError:
                    break
            else:
                return
            server.hung_up.set()
            self.close_connection = True

    return Handler
