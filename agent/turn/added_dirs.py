"""The directories the user added, in a running agent: /add-dir widens the run's set, and the model
is told the set with the next prompt whenever it differs from what it was last told."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from agent.turn.checkpoints import CheckpointRecorder
from sessions.messages import Message
from tools.base import ToolContext

# The meta key of an added-directories note: the directories it told the model (a list of
# absolute paths; empty: that none is added any more).
NOTE_KEY = "added_dirs"
# Injected after the next prompt when the added directories differ from what the model was told
# (the first prompt of a run with --add-dir, after /add-dir, after a fold took the last note) ...
ADDED_NOTE = (
    "[pleat: added directories] Besides the workspace, the user gave you these directories: "
    "read, search and write their files with the file tools by absolute path, as you do the "
    "workspace's (commands in the sandbox may write there too):\n{dirs}"
)
# ... and when a resumed session's run has none of those it was told of.
NONE_NOTE = (
    "[pleat: added directories] No directory outside the workspace is added now: the ones "
    "named earlier are out of reach."
)


class Widened(Protocol):
    """What /add-dir changes of the agent (agent/turn/loop.py)."""

    context: ToolContext
    checkpoints: CheckpointRecorder | None


def add_directory(agent: Widened, directory: Path) -> str | None:
    """Add `directory` (checked: agent/permissions/added_dirs.py checked_dirs) to the run for
    the rest of it: the sandbox every agent of the run shares lets commands write there, and
    the file tools and the checkpoints of undo take its paths. Returns why it was not added
    (one line), or None."""
    sandbox = agent.context.sandbox
    if sandbox is not None:
        if (own := sandbox.add(directory)) is not None:
            return (
                f"{directory} holds pleat's own files ({own}), which a sandboxed command could "
                "then change; not added"
            )
        roots = sandbox.added
    else:
        roots = tuple(dict.fromkeys((*agent.context.extra_roots, directory)))
    agent.context = dataclasses.replace(agent.context, extra_roots=roots)
    if agent.checkpoints is not None:
        agent.checkpoints.extra_roots = roots
    return None


def told_dirs(history: Sequence[Message]) -> tuple[str, ...]:
    """The added directories the model was last told of (the newest note's), else none."""
    for message in reversed(history):
        told = message.meta.get(NOTE_KEY)
        if isinstance(told, list):
            return tuple(str(path) for path in told)
    return ()


def added_note(roots: Sequence[Path], history: Sequence[Message]) -> Message | None:
    """The note to inject after the user's prompt when the added directories differ from what
    the model was last told; otherwise none. A user-role message marked injected: the TUI does
    not show it, the ledger does not take it for a request. A fold that takes the note away
    makes the next prompt say it again (a summary carries no note)."""
    now = tuple(str(root) for root in roots)
    if now == told_dirs(history):
        return None
    text = ADDED_NOTE.format(dirs="\n".join(f"- {d}" for d in now)) if now else NONE_NOTE
    return Message(role="user", content=text, meta={"injected": True, NOTE_KEY: list(now)})
