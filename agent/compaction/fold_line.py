"""How a fold is said in one line: headless stderr, the TUI's fold markers and status figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the status bar needs kilo before the first frame: the events come later
    from agent.events import CompactionDone, CompactionFailed


def kilo(tokens: int) -> str:
    """A token count as people read it: 950, 1.2k, 171.0k."""
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


def describe_compaction(event: CompactionDone | CompactionFailed) -> str:
    """One line for a fold: what went where, how much it freed, how much the cache served."""
    from agent.events import CompactionFailed

    if isinstance(event, CompactionFailed):
        return event.message
    where = f"chunk {event.chunk}" + (" (merged)" if event.merged else "")
    sizes = f"{kilo(event.tokens_before)} -> {kilo(event.tokens_after)} tokens"
    if event.method == "shrink":
        count = event.shrunk_messages
        return (
            f"shrank {count} tool result{'' if count == 1 else 's'} that did not fit the context "
            f"to stubs; the originals are in {where} · {sizes}"
        )
    line = (
        f"folded {event.folded_messages} message{'' if event.folded_messages == 1 else 's'} "
        f"into {where} · {event.topics or 'no topics'} · {sizes}"
    )
    if event.prompt_tokens:
        line += f" · compression call {event.cached_tokens / event.prompt_tokens:.0%} from cache"
    if event.method != "insert":
        line += f" · summarized by {event.method}"
    if event.suspended:
        line += " · it freed too little: automatic compaction paused until the context grows"
    return line
