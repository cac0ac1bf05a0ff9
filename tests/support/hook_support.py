"""Hook scripts for the tests: Python hooks that log the event they read, and the agent-side
helpers to read what happened (the events' notices, the tool results the model read)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from agent.events import Event, HookNotice
from agent.hooks.config import parse_hooks
from tests.support.scripted_server import ScriptedServer

# A hook script's start: the event from stdin, appended to a log the test reads.
PREAMBLE = """\
import json, sys
event = json.load(sys.stdin)
with open({log!r}, "a") as log:
    log.write(json.dumps(event) + "\\n")
"""


def hook(directory: Path, name: str, body: str = "") -> str:
    """A Python hook script that logs its event to `name`.jsonl, then runs `body`; its command."""
    log = directory / f"{name}.jsonl"
    script = directory / f"{name}.py"
    script.write_text(PREAMBLE.format(log=str(log)) + body)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def logged(directory: Path, name: str) -> list[dict[str, Any]]:
    path = directory / f"{name}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def hooks(**events: list[dict[str, Any]]) -> dict[str, Any]:
    """Config keyword arguments holding these [[hooks.EVENT]] tables. The test hooks log
    outside the workspace, so they run outside the sandbox (`sandbox = false`, as config.toml
    allows) unless a table says otherwise (tests/e2e/test_sandbox.py confines one)."""
    unconfined = {
        event: [{"sandbox": False, **table} for table in tables] for event, tables in events.items()
    }
    return {"hooks": parse_hooks(unconfined)}


def notices(events: list[Event]) -> list[HookNotice]:
    return [e for e in events if isinstance(e, HookNotice)]


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]
