"""What the conversation shows, as plain data: each widget is built from (and updates) one entry."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from sessions.messages import ToolCall

NoticeKind = Literal["error", "note"]
# A fold marker's life: compacting now, folded, failed (history unchanged), or interrupted.
FoldState = Literal["running", "done", "failed", "cancelled"]


@dataclass(eq=False)
class UserEntry:
    """A prompt the user sent, and the images attached to it (`shot.png 800×600`)."""

    text: str
    images: tuple[str, ...] = ()


@dataclass(eq=False)
class ReplyEntry:
    """A model reply; the pieces arrive while it streams."""

    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.parts)


@dataclass(eq=False)
class ThinkingEntry:
    """The model's reasoning before a reply (shown collapsed)."""

    parts: list[str] = field(default_factory=list)
    done: bool = False

    @property
    def text(self) -> str:
        return "".join(self.parts)


@dataclass(eq=False)
class ToolEntry:
    """A tool call and, once it finished, its result (and diff, for edits)."""

    summary: str
    result: str | None = None
    is_error: bool = False
    diff: str | None = None
    # A task call's sub-agent: the session its transcript is journaled in (the block opens it),
    # and what it is doing now (a tool call's line, while it runs).
    subsession: str | None = None
    activity: str = ""
    # The call itself, when the entry comes from a saved history (its tool and arguments: what
    # an editor shows its kind and file by, agent/acp/replay.py).
    call: ToolCall | None = None


@dataclass(eq=False)
class NoticeEntry:
    """A one-line note (dim) or error (red)."""

    text: str
    kind: NoticeKind = "note"


@dataclass(eq=False)
class ExpansionEntry:
    """What a custom command sent: the command's file and the expanded prompt (shown
    collapsed under what the user typed)."""

    source: str
    text: str


@dataclass(eq=False)
class MarkdownEntry:
    """A fixed Markdown text from the app (configuration help, /help)."""

    text: str
    classes: str


@dataclass(eq=False)
class FoldEntry:
    """A compaction in the conversation: where older messages were folded into a chunk."""

    text: str
    state: FoldState = "running"
    chunk: int | None = None
    summary: str | None = None  # the summary message that replaced the chunk (Enter shows it)


Entry = (
    UserEntry
    | ExpansionEntry
    | ReplyEntry
    | ThinkingEntry
    | ToolEntry
    | NoticeEntry
    | MarkdownEntry
    | FoldEntry
)
