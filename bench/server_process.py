"""The scripted OpenAI-compatible server in a process of its own, for the benchmarks.

A real provider is another machine: in the measured process the server would compete with
pleat for the interpreter. `serving(mode)` starts `python bench/server_process.py MODE` and
gives its base URL; the child serves until its stdin closes. Modes:

- `hi`: every request is answered "hi" (a headless run's one short reply).
- `fold SUMMARY_FILE [REPLY_FILE]`: a compression request (pleat's instruction last) is
  answered with the summary file's text, anything else with the reply file's (default "ok").
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# How pleat's compression instruction starts (agent/compaction/instruction.py): what marks a
# fold's request.
INSTRUCTION_MARK = "[pleat: context compaction"
# Seconds the server may take to say its address before the benchmark gives up.
START_TIMEOUT_SECONDS = 60.0


@contextmanager
def serving(*mode: str) -> Iterator[str]:
    """The base URL of a scripted server running `mode` in its own process, while inside."""
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), *mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        url = child.stdout.readline().strip()
        if not url.startswith("http"):
            raise RuntimeError(f"the scripted server did not start (exit {child.poll()})")
        yield url
    finally:
        child.stdin.close()
        child.wait(timeout=START_TIMEOUT_SECONDS)


def _serve(mode: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.support.scripted_server import ScriptedServer, Text

    if mode[:1] == ["hi"]:

        def respond(body: dict[str, Any]) -> Text:
            return Text("hi")
    elif mode[:1] == ["fold"] and len(mode) in (2, 3):
        summary = Path(mode[1]).read_text(encoding="utf-8")
        reply = Path(mode[2]).read_text(encoding="utf-8") if len(mode) == 3 else "ok"

        def respond(body: dict[str, Any]) -> Text:
            last = body["messages"][-1]
            asked = last["role"] == "user" and INSTRUCTION_MARK in str(last.get("content"))
            return Text(summary if asked else reply)
    else:
        raise SystemExit(f"unknown mode {mode!r}: hi, or fold SUMMARY_FILE [REPLY_FILE]")
    with ScriptedServer(fallback=respond) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()  # until the benchmark closes our stdin


if __name__ == "__main__":
    _serve(sys.argv[1:])
