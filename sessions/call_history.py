"""A session's model calls and folds in order, read from its journal (what /context charts)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from sessions.usage import CallPurpose

# Journal lines start with their record type (Journal.append writes "type" first): message
# lines, the bulk of a journal, are skipped without being parsed.
MESSAGE_LINE = '{"type":"message"'


@dataclass(frozen=True)
class Call:
    """One model call: the prompt it sent (the context at that moment) and what it was for."""

    prompt_tokens: int
    purpose: CallPurpose


@dataclass
class CallHistory:
    """Calls in the order they were made; `folds` holds, for each fold, how many calls came
    before it (the fold sits between call number n and call n + 1, counting from 1)."""

    calls: list[Call] = field(default_factory=list)
    folds: list[int] = field(default_factory=list)

    def points(self, limit: int) -> list[tuple[int, int]]:
        """(call number, prompt tokens) to draw, at most `limit` of them: past that the calls
        are cut into equal runs and each run is drawn by its largest call, so a peak (the
        moment before a fold) is never averaged away."""
        sizes = [c.prompt_tokens for c in self.calls]
        if len(sizes) <= limit:
            return [(number, size) for number, size in enumerate(sizes, 1)]
        points = []
        for run in range(limit):
            start, end = run * len(sizes) // limit, (run + 1) * len(sizes) // limit
            peak = max(range(start, end), key=sizes.__getitem__)
            points.append((peak + 1, sizes[peak]))
        return points


def _tokens(value: object) -> int:
    return value if type(value) is int and value > 0 else 0


def read_call_history(path: Path) -> CallHistory:
    """The calls and folds a journal recorded. A call whose prompt size was not reported (an
    interrupted one) is left out: it has no place on the chart. A compaction record before
    any call is not a fold: a fork's journal opens with one, carrying its parent's history.
    Damaged lines are skipped; a missing journal is an empty history."""
    history = CallHistory()
    try:
        with path.open("r", encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith(MESSAGE_LINE):
                    continue
                try:
                    record = json.loads(line)
                except (ValueError, RecursionError):  # a torn line; absurd nesting
                    continue
                if not isinstance(record, dict):
                    continue
                kind = record.get("type")
                if record.get("purpose") == "subagent":
                    continue  # a sub-agent's call: the size of its context, not this one's
                if kind == "usage" and (tokens := _tokens(record.get("prompt_tokens"))):
                    purpose: CallPurpose = (
                        "compression" if record.get("purpose") == "compression" else "turn"
                    )
                    history.calls.append(Call(tokens, purpose))
                elif kind == "compaction" and history.calls:
                    history.folds.append(len(history.calls))
    except OSError:
        return CallHistory()
    return history
