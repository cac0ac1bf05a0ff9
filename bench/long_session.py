"""A long session on disk for the TUI and headless benchmarks: N messages, a fold every so often."""

from __future__ import annotations

from pathlib import Path

from sessions.messages import Message
from sessions.store import Session

# One fold per this many messages, as in a long working day (issue 32: 10,000 messages with 50
# folds behind them); a smaller session gets proportionally fewer (100 messages: none).
MESSAGES_PER_FOLD = 200
# Messages a fold keeps verbatim after its summary (the recent tail; agent/compaction/tail.py
# keeps a count and token budget of this order).
TAIL = 20
# A reply the size of a typical answer: a paragraph, a list and a code block.
REPLY = """\
The cache is keyed by the **file hash**, so a touched but unchanged file is not rebuilt.

- `load()` reads and parses
- `store()` writes atomically

```python
key = hashlib.sha256(data).hexdigest()
```
"""


def folds_for(messages: int) -> int:
    return messages // MESSAGES_PER_FOLD


def _summary(number: int) -> Message:
    """The head of a rebuilt history, shaped as agent/compaction/rebuild.py makes it."""
    text = f"the cache work up to fold {number}: hashing, atomic stores, a reader"
    return Message(
        role="user",
        content=f"[pleat: the earlier conversation was folded to save context]\n\n{text}",
        id=f"summary-{number}",
        meta={"kind": "summary", "injected": True, "summary": text, "chunk": number},
    )


def seed(workspace: Path, messages: int, folds: int | None = None) -> str:
    """A session with `messages` messages after the system prompt (user and assistant turns);
    `folds` compactions (default: one per MESSAGES_PER_FOLD), each archiving what came before
    its recent tail into a chunk and journaling the rebuilt history, as a real fold does."""
    folds = folds_for(messages) if folds is None else folds
    every = messages // (folds + 1) if folds else messages + 1
    session = Session.create(workspace, model="scripted-model")
    system = Message(role="system", content="You are pleat.", id="m1")
    live: list[Message] = []  # since the last fold (its summary first)
    done = 0
    try:
        session.message(system)
        for n in range(messages // 2):
            for message in (
                Message(role="user", content=f"question {n}?", id=f"m{2 * n + 2}"),
                Message(role="assistant", content=REPLY, id=f"m{2 * n + 3}"),
            ):
                session.message(message)
                live.append(message)
            if done < folds and (2 * n + 2) >= every * (done + 1):
                done += 1
                cut = len(live) - TAIL
                folded = [m for m in live[:cut] if m.meta.get("kind") != "summary"]
                chunk = session.archive.write_chunk(folded, topics=f"fold {done}", tokens=1)
                live = [_summary(chunk.number), *live[cut:]]
                session.compaction(chunk.number, False, [system, *live])
    finally:
        session.close()
    return session.id
