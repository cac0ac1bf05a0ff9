"""Typed events the agent yields to its front ends (TUI, headless); the core never calls a UI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sessions.messages import Message, ToolCall
from sessions.usage import CallPurpose, Usage

# A provider failure's class (agent/model/llm.py classifies every litellm error as one of these).
ProviderErrorKind = Literal[
    "context_overflow", "rate_limit", "transient", "auth", "config", "bad_request"
]
# Every failure a front end may be told of: a provider's, or the journal's, a reply cut at the
# output limit, an empty reply, the tool-iteration cap, the spending cap, a prompt a hook blocked.
ErrorKind = (
    ProviderErrorKind
    | Literal["journal", "truncated", "bad_reply", "iteration_cap", "budget", "hook"]
)
# Why a fold happens: the context reached the threshold or the message cap, the provider said
# it overflowed, the user asked (/compact), the UI was idle, a fork hands the work over, or a
# switch to a model with a smaller window.
FoldReason = Literal[
    "threshold", "message_cap", "overflow", "manual", "idle", "fork", "model_switch"
]
# How a fold was made: "insert" (in the live conversation), "pieces" (an oversized head),
# "ledger" (no model summary), "separate" (replay's baseline), "shrink" (tool results stubbed,
# nothing folded).
FoldMethod = Literal["insert", "pieces", "ledger", "separate", "shrink"]


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's streamed answer."""

    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    """A piece of the model's reasoning (shown collapsed; kept on the reply, never re-sent as
    text)."""

    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    call: ToolCall
    summary: str  # one human line, e.g. read_file(path='a.py')


@dataclass(frozen=True)
class ToolCallFinished:
    call: ToolCall
    text: str
    is_error: bool
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SubagentActivity:
    """A sub-agent at work on a `task` call (agent/subagents/team.py): the session its transcript is
    journaled in (known from its start: a front end can open it while it runs) and what it is
    doing now (a tool call's line; "" when it starts)."""

    call: ToolCall
    session_id: str
    summary: str = ""


@dataclass(frozen=True)
class SubagentMessage:
    """A message a sub-agent at work on a `task` call added to its own conversation (its reply,
    or a tool's result), with the usage of the model call that made a reply: for front ends that
    show a sub-agent's whole conversation (stream-json, under the task call's id)."""

    call: ToolCall
    session_id: str
    model: str  # the sub-agent's (an agent definition may name its own)
    message: Message
    usage: Usage | None = None


@dataclass(frozen=True)
class PromptDelivered:
    """A prompt the user queued while the turn ran, now in the history (message `message_id`)
    just before the model call that reads it."""

    text: str
    message_id: str
    images: tuple[str, ...] = ()  # the labels of the images it attached (shot.png 800×600)
    notes: tuple[str, ...] = ()  # what could not be attached, or will not be seen


@dataclass(frozen=True)
class UsageReported:
    """One model call's usage and price (every call, compression included, is reported)."""

    usage: Usage
    model: str
    purpose: CallPurpose = "turn"


@dataclass(frozen=True)
class Retrying:
    """A transient provider failure; the call is retried after `delay` seconds."""

    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True)
class ErrorEvent:
    """A failure the user must see: one line, no traceback. `kind` is the error class."""

    kind: ErrorKind
    message: str


@dataclass(frozen=True)
class CompactionStarted:
    reason: FoldReason
    tokens: int
    messages: int
    # Started early, in the background (agent/turn/background_fold.py): the turn goes on, and
    # the fold is applied (CompactionDone) or dropped (FoldDropped) later.
    background: bool = False
    # Said once a session, with a background fold: the window is too small for a fold to be
    # ready at the threshold (agent/compaction/early.py), and what pleat does instead.
    note: str = ""


@dataclass(frozen=True)
class FoldDropped:
    """A background fold that will not be applied: the conversation it folded changed (/undo,
    /rewind, /model, a resume), or its compression call failed (the ordinary fold still runs
    at the threshold). Nothing of it was applied."""

    why: str


@dataclass(frozen=True)
class CompactionDone:
    """A fold that happened: what it cost and what it freed. `history` is the rebuilt one."""

    reason: FoldReason
    chunk: int
    topics: str
    merged: bool  # appended to the previous chunk (<continues_previous> was true)
    method: FoldMethod
    folded_messages: int
    tokens_before: int
    tokens_after: int
    messages_before: int
    messages_after: int
    prompt_tokens: int  # of the compression call(s), as the provider reported
    cached_tokens: int  # of those, served from the provider's prompt cache
    seconds: float
    suspended: bool  # gain below the minimum: automatic compaction paused
    history: list[Any] = field(default_factory=list, repr=False, compare=False)
    # Tool results replaced by stubs (their originals archived in the chunk): by the cheap tier
    # during a fold, or by the last rung (method "shrink") when a request could not fit.
    shrunk_messages: int = 0
    # Seconds the turn (or the user, for /compact) waited for this fold: all of a fold made
    # there and then; for one begun in the background, the rest of its call and the commit.
    waited: float = 0.0


@dataclass(frozen=True)
class CompactionFailed:
    """No fold happened; the history is exactly as it was."""

    reason: FoldReason
    message: str
    # The user discarded the summary shown to them (/compact --preview): nothing went wrong.
    discarded: bool = False


@dataclass(frozen=True)
class HookNotice:
    """A hook blocked something, fed the model, or failed (reported, then ignored): one line
    for the user (agent/turn/agent_hooks.py)."""

    event: str  # the hook event, as Claude Code names it
    message: str
    failed: bool = False


@dataclass(frozen=True)
class PromptBlocked:
    """A UserPromptSubmit hook blocked a prompt (exit 2): it was not sent and is not in the
    history. `queued`: one the user sent while the turn ran. The front end gives `text` back."""

    text: str
    message: str
    queued: bool = False


StopReason = Literal["answer", "cancelled", "iteration_cap", "error"]


@dataclass(frozen=True)
class TurnDone:
    reason: StopReason
    text: str = ""  # the final answer, when reason == "answer"
    iterations: int = 0


Event = (
    TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolCallFinished
    | SubagentActivity
    | SubagentMessage
    | PromptDelivered
    | PromptBlocked
    | HookNotice
    | UsageReported
    | Retrying
    | ErrorEvent
    | TurnDone
    | CompactionStarted
    | CompactionDone
    | CompactionFailed
    | FoldDropped
)


# What a session says outside a turn's answer, and the events only a session (not a turn) yields.
NoticeLevel = Literal["note", "error"]


@dataclass(frozen=True)
class Notice:
    """A line the session says to its user outside an answer: a repair made on resuming, a
    SessionStart hook's output, a server that failed, a setting not used (level "error": shown
    as a problem)."""

    message: str
    level: NoticeLevel = "note"


@dataclass(frozen=True)
class CommandOutput:
    """What a built-in slash command answers, as markdown: the TUI shows it in the conversation,
    `pleat -p` prints it on stdout, ACP sends it as the agent's message."""

    text: str
    failed: bool = False  # the command could not do what it was asked (its text says why)
    # A diff the command shows (/diff), for a front end that draws diffs as a block: its title
    # line, the files it lists, and the unified diff (`text` holds all of it as text).
    diff: str = ""
    title: str = ""
    listed: str = ""


# Everything a session runtime yields: a turn's events and its own.
SessionEvent = Event | Notice | CommandOutput
