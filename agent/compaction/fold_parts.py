"""What a fold is made of between the engine's steps: the model it asks, the usage of its
compression calls, the summarized fold awaiting its commit, and why one could not be made."""

from __future__ import annotations

import dataclasses
import errno
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agent.compaction.reply import CompressionReply
from agent.compaction.tail import Split
from agent.events import FoldMethod, FoldReason, Retrying, ThinkingDelta, UsageReported
from agent.model.llm import LLMReply
from sessions.messages import Message
from sessions.usage import Usage

# The disk failures a chunk write meets, in the words the user reads (other errors give the
# system's own description).
_DISK_PROBLEMS = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EEXIST: "a file is in the way of the directory",
    errno.ENOTDIR: "a file is in the way of the directory",
}


def archive_failure(directory: Path, error: OSError) -> str:
    """One line for a chunk that could not be written: where, and what went wrong."""
    why = _DISK_PROBLEMS.get(error.errno or 0) or error.strerror or str(error)
    return f"cannot write the archive in {directory}: {why}"


class SummaryModel(Protocol):
    """What the engine needs of a model: agent.model.llm.LLM, or replay's offline summarizer."""

    def context_window(self) -> int: ...

    def reply_limits(self) -> tuple[int, int | None]:
        """(the least output a reply needs, the most the model can give, or None)."""
        ...

    def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        max_tokens: int | None = None,
    ) -> AsyncIterator[str | ThinkingDelta | Retrying | LLMReply]: ...


class SummaryUnavailable(Exception):
    """No summary could be made (nothing to fold, the model failed, or its reply was unusable):
    the fold does not happen and the history stays exactly as it was."""


@dataclass
class CompressionCalls:
    """Usage of the compression call(s) of one compaction."""

    usages: list[Usage] = field(default_factory=list)

    def add(self, reply: LLMReply) -> None:
        self.usages.append(reply.usage)

    @property
    def prompt_tokens(self) -> int:
        return sum(usage.prompt_tokens for usage in self.usages)

    @property
    def cached_tokens(self) -> int:
        return sum(usage.cached_tokens for usage in self.usages)

    def reported(self, model: str) -> list[UsageReported]:
        """One event per call: journaled and billed like every other model call."""
        return [UsageReported(usage, model, purpose="compression") for usage in self.usages]


@dataclass(frozen=True)
class Fold:
    """What a successful summarization produced, before archiving and rebuilding."""

    split: Split
    reply: CompressionReply
    method: FoldMethod


@dataclass(frozen=True)
class Summarized:
    """A fold whose summary is in, ready for Compactor.commit (never shown to a front end)."""

    history: list[Message]
    fold: Fold
    reason: FoldReason
    tokens_before: int
    started: float  # time.monotonic() when the fold began
    calls: CompressionCalls

    def with_summary(self, summary: str) -> Summarized:
        """The same fold with `summary` in place of the model's (the user edited it)."""
        reply = dataclasses.replace(self.fold.reply, summary=summary)
        return dataclasses.replace(self, fold=dataclasses.replace(self.fold, reply=reply))
