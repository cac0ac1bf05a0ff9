"""A threaded HTTP server on a free loopback port, run for the span of a `with` block."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

# Seconds between the server loop's looks at a shutdown request: shutdown() waits up to this long,
# and every test with a server pays it once (the library's default, 0.5 s, was half a second of
# each such test); the loop wakes at once for a connection whatever this is.
POLL_SECONDS = 0.01


class LoopbackServer:
    """Serves `handler` at http://127.0.0.1:<port>; subclasses give the handler class."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(POLL_SECONDS,), daemon=True
        )

    @property
    def root_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
