"""What the turn's helpers use of the agent: one small Protocol each, never the whole Agent.

The loop (agent/turn/loop.py) hands each helper itself, and each helper names only the part it
uses, as codex-rs hands a tool call a small invocation value rather than the engine: a reply's
calls add results and reach safe points; a tool call reaches the registry, the hooks and the
permissions; room-making folds and shrinks. So no helper imports the loop, and the loop stays the
one place that holds them together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from agent.compaction.engine import Compactor
from agent.events import ErrorEvent, Event, FoldReason
from agent.permissions.policy import Approver, Permissions
from agent.turn.agent_hooks import AgentHooks
from agent.turn.checkpoints import CheckpointRecorder
from agent.turn.side_events import SideEvents
from agent.turn.uninterruptible import UninterruptibleSteps
from sessions.messages import Message
from tools.base import ToolContext
from tools.registry import ToolRegistry


class ReplyHost(Protocol):
    """What running a reply's tool calls uses (agent/turn/reply_calls.py)."""

    registry: ToolRegistry
    side_events: SideEvents

    def add(self, message: Message) -> Message: ...

    async def safe_point(self) -> ErrorEvent | None: ...


class CallHost(Protocol):
    """What one tool call uses (agent/turn/tool_call.py)."""

    registry: ToolRegistry
    hooks: AgentHooks
    permissions: Permissions
    approve: Approver
    checkpoints: CheckpointRecorder | None

    def tool_context(self, calls: int = 1) -> ToolContext: ...


class RoomHost(Protocol):
    """What making room before a model call uses (agent/turn/room.py)."""

    compactor: Compactor | None
    history: list[Message]
    commits: UninterruptibleSteps
    unannounced: list[Event]

    def compact(
        self, *, reason: FoldReason = "manual", focus: str | None = None
    ) -> AsyncIterator[Event]: ...

    async def shrink(
        self, reason: FoldReason, *, unread_too: bool
    ) -> tuple[Event | None, ErrorEvent | None]: ...
