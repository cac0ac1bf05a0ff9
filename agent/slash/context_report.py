"""What fills the context window, from the compactor's own ledger and budget: the /context screen's
breakdown, its text form, and the status bar's meter."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sessions.call_history import CallHistory, read_call_history
from sessions.messages import is_summary
from sessions.store import Session
from sessions.usage import UsageTally

if TYPE_CHECKING:
    from agent.turn.loop import Agent


@dataclass(frozen=True)
class ContextGauge:
    """The status bar's meter: the next request's size against the window and the fold mark."""

    used: int
    window: int
    trigger: int


@dataclass(frozen=True)
class ContextReport:
    """The /context breakdown. Counted parts (tiktoken, cached per message) add up to
    `counted`; `size` is what the compactor compares with the trigger (the provider's last
    reported prompt tokens plus what was appended since, when there is a report)."""

    system_tokens: int
    tools_tokens: int
    summary_tokens: int
    message_tokens: int
    messages: int  # messages after the system prompt and the summary
    counted: int
    size: int
    window: int
    usable: int
    reserved_output: int
    trigger: int
    suspended_below: int | None
    chunks: int
    usage: UsageTally = field(default_factory=UsageTally)  # the session's calls, as billed
    # Every call's prompt size and every fold, from the journal (None: no journal to read).
    calls: CallHistory | None = None

    @property
    def gauge(self) -> ContextGauge:
        return ContextGauge(self.size, self.window, self.trigger)


def context_report(agent: Agent) -> ContextReport | None:
    """The breakdown of the agent's live history; None without a compactor. Blocking on first
    use (loads the tokenizer, asks litellm for the window): call it from a thread then."""
    compactor = agent.compactor
    if compactor is None:
        return None
    ledger, budget, history = compactor.tokens, compactor.budget, agent.history
    system = ledger.count(history[0]) if history and history[0].role == "system" else 0
    summaries = [m for m in history if is_summary(m)]
    summary = sum(ledger.count(m) for m in summaries)
    rest = [m for m in history[1:] if not is_summary(m)]
    messages = sum(ledger.count(m) for m in rest)
    return ContextReport(
        system_tokens=system,
        tools_tokens=ledger.tools_tokens,
        summary_tokens=summary,
        message_tokens=messages,
        messages=len(rest),
        counted=ledger.estimate(history),
        size=ledger.size(history),
        window=budget.window,
        usable=budget.usable,
        reserved_output=budget.window - budget.usable,
        trigger=budget.trigger_tokens,
        suspended_below=compactor.suspended_below,
        chunks=len(compactor.archive.chunks()),
        usage=agent.usage,
        calls=_calls(agent),
    )


def _calls(agent: Agent) -> CallHistory | None:
    """The session's calls and folds as its journal holds them (a resumed session's too)."""
    if not isinstance(agent.recorder, Session):
        return None
    return read_call_history(agent.recorder.journal.path)


def gauge(agent: Agent) -> ContextGauge | None:
    """Just the meter (cheaper than the report: no per-part sums)."""
    compactor = agent.compactor
    if compactor is None:
        return None
    budget = compactor.budget
    return ContextGauge(compactor.tokens.size(agent.history), budget.window, budget.trigger_tokens)


def report_text(report: ContextReport) -> str:
    """The breakdown as lines, for a front end without the /context screen."""
    share = f"{report.size / report.window:.0%}" if report.window else "?"
    lines = [
        f"context: {report.size:,} of {report.window:,} tokens ({share}); folds at "
        f"{report.trigger:,}",
        f"  system prompt  {report.system_tokens:,}",
        f"  tool schemas   {report.tools_tokens:,}",
        f"  summary        {report.summary_tokens:,}",
        f"  messages       {report.message_tokens:,} ({report.messages} messages)",
        f"  reserved for the reply  {report.reserved_output:,}",
        f"archived chunks: {report.chunks}",
    ]
    if report.suspended_below is not None:
        lines.append(
            f"automatic folding paused until the context passes {report.suspended_below:,}"
        )
    return "\n".join(lines)
