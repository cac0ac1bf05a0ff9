"""A hand-written language server (LSP's framing, no library) that answers `initialize`, then
misbehaves as its first argument says:

- `deaf`: never reads its input again (what pleat sends piles up in pleat unless bounded);
- `many-files`: publishes diagnostics of $HOSTILE_FILES (default 500) files pleat never opened,
  each with 10 messages, then those of the file opened (its version);
- `crash-on-open`: exits with code 3 when a document is opened.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

MODE = sys.argv[1]
# A diagnostic at the start of a file.
AT_START = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}


def read() -> dict[str, Any]:
    """The next message, or exit when the input ends."""
    length = 0
    while line := sys.stdin.buffer.readline():
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        elif line.strip() == b"":
            return dict(json.loads(sys.stdin.buffer.read(length)))
    sys.exit(0)


def send(message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def publish(uri: str, version: int | None, messages: list[str]) -> None:
    items = [{"range": AT_START, "message": text, "severity": 1} for text in messages]
    params: dict[str, Any] = {"uri": uri, "diagnostics": items}
    if version is not None:
        params["version"] = version
    send({"method": "textDocument/publishDiagnostics", "params": params})


while (message := read()).get("method") != "initialized":
    if message.get("method") == "initialize":
        send({"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
if MODE == "deaf":
    time.sleep(600)
while message := read():
    if message.get("method") != "textDocument/didOpen":
        continue
    if MODE == "crash-on-open":
        sys.exit(3)
    document = message["params"]["textDocument"]
    if MODE == "many-files":
        for number in range(int(os.environ.get("HOSTILE_FILES", "500"))):
            publish(f"file:///elsewhere/{number}.py", None, ["m" * 100] * 10)
        publish(document["uri"], document["version"], ["the file's own"])
