"""Typed events the agent yields to its front ends (TUI, headless); the core never calls a UI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agent.messages import ToolCall


@dataclass(frozen=True)
class Usage:
    """Token usage of one model call, as the provider reported it."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens read from the provider's cache
    cache_creation_tokens: int = 0  # prompt tokens written to the cache (Anthropic)
    cost: float | None = None  # in USD, when litellm knows the model's prices


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's streamed answer."""

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
class UsageReported:
    usage: Usage
    model: str


@dataclass(frozen=True)
class Retrying:
    """A transient provider failure; the call is retried after `delay` seconds."""

    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True)
class ErrorEvent:
    """A failure the user must see: one line, no traceback. `kind` is the error class."""

    kind: str
    message: str


StopReason = Literal["answer", "cancelled", "iteration_cap", "error"]


@dataclass(frozen=True)
class TurnDone:
    reason: StopReason
    text: str = ""  # the final answer, when reason == "answer"
    iterations: int = 0


Event = (
    TextDelta
    | ToolCallStarted
    | ToolCallFinished
    | UsageReported
    | Retrying
    | ErrorEvent
    | TurnDone
)
