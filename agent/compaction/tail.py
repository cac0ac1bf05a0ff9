"""Step 3: choose the recent tail kept verbatim, and what to pull back, on safe boundaries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sessions.messages import Message, is_summary, units


@dataclass(frozen=True)
class Split:
    """How a history divides for one compaction (indices into it).

    history[:fold_start] is the system message (and a previous summary), history[fold_start:
    tail_start] is folded, history[tail_start:send_end] is the kept tail that the compression
    call also sees, history[send_end:] is pulled back: left out of the compression call so it
    fits, and reattached verbatim afterwards.
    """

    fold_start: int
    tail_start: int
    send_end: int

    def folded(self, history: list[Message]) -> list[Message]:
        return history[self.fold_start : self.tail_start]

    def tail(self, history: list[Message]) -> list[Message]:
        return history[self.tail_start : self.send_end]

    def pulled_back(self, history: list[Message]) -> list[Message]:
        return history[self.send_end :]


def fold_start(history: list[Message]) -> int:
    """First foldable index: after the system message and a previous summary."""
    index = 1 if history and history[0].role == "system" else 0
    while index < len(history) and is_summary(history[index]):
        index += 1
    return index


def choose_split(
    history: list[Message],
    count: Callable[[Message], int],
    *,
    tail_messages: int,
    tail_tokens: int,
    pull_back_units: int = 0,
) -> Split | None:
    """The tail is the newest whole units within both budgets; trailing user messages (a
    request not yet answered) and `pull_back_units` more units are pulled back, so that what is
    sent ends with a reply or a tool result (never a user message, which the instruction would
    merge into). Returns None when nothing can be folded."""
    start = fold_start(history)
    spans = units(history, start)
    if len(spans) < 2:
        return None
    # Pull back: trailing user units always (an unanswered request is not summarized), then the
    # requested number of further units.
    trailing = 0
    while trailing < len(spans) and history[spans[-1 - trailing][0]].role == "user":
        trailing += 1
    forced = 0  # newest units kept in the tail whatever its budgets
    pulled = min(len(spans) - 1, trailing + pull_back_units)
    if pulled > trailing and history[spans[-1 - pulled][0]].role == "user":
        # The instruction must not follow a user message (it would be merged into the user's
        # words). Send the reply after it too when it is small enough to keep (the call is then
        # the last request, its reply and the instruction: the last request is still a cached
        # prefix); else pull that user message back as well.
        begin, end = spans[-pulled]
        if sum(count(m) for m in history[begin:end]) <= tail_tokens:
            pulled -= 1
            forced = 1  # sent with the instruction, so kept: never folded unread
        elif pulled + 1 <= len(spans) - 1:
            pulled += 1
        else:
            return None  # only that request is left to fold: nothing worth a summary
    send_end = spans[-1 - pulled][1] if pulled else len(history)
    # Keep units from the newest (not pulled back) backwards while they fit the budgets.
    kept_messages = kept_tokens = 0
    tail_index = len(spans) - pulled
    while tail_index > 1:
        begin, end = spans[tail_index - 1]
        size = sum(count(m) for m in history[begin:end])
        over = kept_messages + (end - begin) > tail_messages or kept_tokens + size > tail_tokens
        if over and forced <= 0:
            break
        forced -= 1
        kept_messages += end - begin
        kept_tokens += size
        tail_index -= 1
    tail_start = spans[tail_index][0] if tail_index < len(spans) else send_end
    tail_start = min(tail_start, send_end)
    if tail_start <= start:
        return None
    return Split(fold_start=start, tail_start=tail_start, send_end=send_end)
