"""Recorded sessions: reading them (one OpenAI-format session a JSON line, gzipped or not), and
the one tool they use."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessions.messages import Message

# The one tool of the recorded sessions (mini-swe-agent's bash), offered in every replayed
# request so tool schemas count toward the window as they do live.
BASH_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a bash command.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}


@dataclass
class RecordedSession:
    name: str
    messages: list[Message]


def read_sessions(path: Path) -> Iterator[RecordedSession]:
    """Sessions from a JSONL file (optionally gzipped): one {"messages": [...]} per line."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            record = json.loads(line)
            name = str(record.get("instance_id") or f"session-{number}")
            messages = [
                Message.from_record({**m, "id": f"m{i}"}) for i, m in enumerate(record["messages"])
            ]
            yield RecordedSession(name, messages)
