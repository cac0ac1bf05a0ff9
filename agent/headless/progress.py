"""What every headless run says on stderr as it goes, whatever its output format: one line per
tool call, sub-agent step, failed result, fold and hook notice. Retries stay quiet: a failure
that outlasts them is reported once, as the run's one error line."""

from __future__ import annotations

from typing import TextIO

from agent.compaction.fold_line import describe_compaction
from agent.events import (
    CompactionDone,
    CompactionFailed,
    CompactionStarted,
    Event,
    FoldDropped,
    HookNotice,
    SubagentActivity,
    ToolCallFinished,
    ToolCallStarted,
)
from agent.subagents.team import activity_line

# A tool result shown on stderr is cut to this many characters (the model gets all of it).
STDERR_PREVIEW_CHARS = 200


def say_progress(event: Event, err: TextIO) -> None:
    """The event's line on `err`, if it has one."""
    if isinstance(event, ToolCallStarted):
        err.write(f"• {event.summary}\n")
    elif isinstance(event, SubagentActivity) and event.summary:
        err.write(f"  ↳ {activity_line(event)}\n")
    elif isinstance(event, ToolCallFinished) and event.is_error:
        line = " ".join(event.text.split())[:STDERR_PREVIEW_CHARS]
        err.write(f"  ✗ {line}\n")
    elif isinstance(event, CompactionDone | CompactionFailed):
        err.write(f"⟳ {describe_compaction(event)}\n")
    elif isinstance(event, HookNotice):  # a hook blocked something, or failed
        err.write(f"pleat: {event.message}\n")
    elif isinstance(event, FoldDropped):
        err.write(f"pleat: note: background fold dropped: {event.why}\n")
    elif isinstance(event, CompactionStarted) and event.note:
        err.write(f"pleat: note: {event.note}\n")
