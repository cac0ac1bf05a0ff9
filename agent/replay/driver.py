"""Replay a recorded session through the real compaction engine, as if it were live: recorded
user messages and tool results arrive as recorded, recorded assistant messages stand in for the
model's replies, and compactions happen by the policy before every "model call"."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.compaction.engine import Compactor, SummaryModel
from agent.compaction.offline_model import OfflineSummarizer
from agent.compaction.policy import CompactionPolicy
from agent.events import CompactionDone, CompactionFailed
from agent.messages import Message
from agent.tokens import TokenLedger
from sessions.archive import ChunkArchive

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


@dataclass
class ReplayResult:
    """What happened to one session: every request's size, every compaction."""

    name: str
    requests: list[int] = field(default_factory=list)  # prompt tokens of each model call
    compactions: list[CompactionDone] = field(default_factory=list)
    failures: list[CompactionFailed] = field(default_factory=list)
    history: list[Message] = field(default_factory=list)


async def replay_session(
    session: RecordedSession,
    *,
    policy: CompactionPolicy,
    window: int,
    archive_dir: Path,
    summarizer: SummaryModel | None = None,
    on_compaction: Callable[[list[Message], CompactionDone], None] | None = None,
) -> ReplayResult:
    """Feed one recorded session through the engine; `on_compaction` sees each fold."""
    counter = iter(range(1_000_000, 10_000_000))
    tokens = TokenLedger([BASH_TOOL])
    compactor = Compactor(
        policy,
        summarizer or OfflineSummarizer(window),
        ChunkArchive(archive_dir, session.name),
        tokens,
        new_id=lambda: f"m{next(counter)}",
        window=window,
    )
    result = ReplayResult(session.name)
    history: list[Message] = [session.messages[0]]
    for message in session.messages[1:]:
        if message.role == "assistant":
            reason = compactor.due(history)
            if reason is not None:
                async for event in compactor.compact(history, [BASH_TOOL], reason=reason):
                    if isinstance(event, CompactionDone):
                        if on_compaction is not None:
                            on_compaction(history, event)
                        history = list(event.history)
                        result.compactions.append(event)
                    elif isinstance(event, CompactionFailed):
                        result.failures.append(event)
            size = tokens.size(history)
            result.requests.append(size)
            tokens.report(size, len(history))
        history.append(message)
    result.history = history
    return result
