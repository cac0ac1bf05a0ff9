"""When a fold starts in the background: early enough that its summary is ready at the
threshold, as far as this session's growth and compression calls show (lead.py), and only when
it would free something, as a fold at the threshold must (Compactor.due)."""

from __future__ import annotations

from dataclasses import dataclass

from agent.compaction.engine import Compactor
from sessions.messages import Message

# Share of the threshold below which no background fold is considered (nor the context
# counted): a fold is never that far ahead, and a small context needs no tokenizer loaded.
CONSIDERED_FROM = 0.5


@dataclass(frozen=True)
class EarlyStart:
    """A background fold to start now."""

    # Tokens expected to arrive before the threshold: the verbatim tail the fold keeps is
    # smaller by as much, as what arrives meanwhile stays verbatim after it.
    growth: int
    # Said once a session: the window leaves less room between folds than a fold needs ahead
    # of the threshold, so each starts as soon as it is worth one ("" otherwise).
    note: str = ""


def observed_size(compactor: Compactor, history: list[Message]) -> int | None:
    """The context's size before a model call, measured for the lead (lead.py), or None while
    it is far below the threshold (not counted)."""
    if compactor.tokens.size_at_most(history) < int(
        compactor.budget.trigger_tokens * CONSIDERED_FROM
    ):
        return None  # for sure, without counting
    size = compactor.tokens.size(history)
    if history and history[-1].role == "user":  # a new request: the user's pause is not growth
        compactor.lead.restart()
    compactor.lead.observe(size)
    return size


def early_start(
    compactor: Compactor, history: list[Message], size: int, *, at_threshold: bool = False
) -> EarlyStart | None:
    """A fold to start in the background now (the context `size`), or None: background folds
    on (`early_fold_at` below 1), automatic folding not paused, the context within the lead a
    fold needs of the threshold (at the latest `early_fold_at` of it) or `at_threshold` (a
    fold due there while the request still fits: it too is made beside the turn), and a fold
    now would free something. What arrives while it runs stays verbatim after it: its tail is
    smaller by as much (the lead, or what is left below the threshold if more), so it folds
    what a fold at the threshold would, and a small window's fold leaves room for the next."""
    budget = compactor.budget
    trigger = budget.trigger_tokens
    if budget.early_tokens >= trigger or compactor.suspended_below is not None:
        return None
    lead = compactor.lead.tokens()
    start = budget.early_tokens if lead is None else min(budget.early_tokens, trigger - lead)
    if not at_threshold and not start <= size < trigger:
        return None
    growth = max(trigger - size, lead or 0)
    if compactor.expected_gain(history, growth) <= 0:
        return None
    return EarlyStart(growth, small_window_note(compactor, lead))


def small_window_note(compactor: Compactor, lead: int | None) -> str:
    """What to say (once a session) when the room a fold leaves below the threshold is less
    than the lead the next fold needs; "" when it is not, or was said."""
    after, seconds = compactor.after_last_fold, compactor.lead.call_seconds
    if lead is None or after is None or seconds is None or compactor.lead.said_small:
        return ""
    room = compactor.budget.trigger_tokens - after
    if lead <= room:
        return ""
    compactor.lead.said_small = True
    return (
        f"this {compactor.budget.window:,}-token window leaves {room:,} tokens between folds, "
        f"less than the {lead:,} the context grows by while a summary is written "
        f"(~{seconds:.0f} s): each fold starts as soon as it is worth one, and the turn waits "
        f"for it only when the next request would not fit without it"
    )
