"""What the turn's helpers use of the agent: one small Protocol each, never the whole Agent.

The loop (agent/turn/loop.py) hands each helper itself, and each helper names only the part it
uses, as codex-rs hands a tool call a small invocation value rather than the engine: a reply's
calls add results and reach safe points; a tool call reaches the registry, the hooks and the
permissions; room-making folds and shrinks. So no helper imports the loop, and the loop stays the
one place that holds them together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from agent.compaction.engine import Compactor
from agent.events import ErrorEvent, Event, FoldReason
from agent.hooks.tool_hooks import PreToolOutcome
from agent.permissions.policy import Approver, Permissions
from agent.turn.checkpoints import CheckpointRecorder
from agent.turn.folds import Folds
from agent.turn.prompt_queue import PromptQueue
from agent.turn.side_events import SideEvents
from sessions.messages import Message, ToolCall
from tools.base import Tool, ToolContext, ToolOutput
from tools.registry import ToolRegistry


class ReplyHost(Protocol):
    """What running a reply's tool calls uses (agent/turn/reply_calls.py)."""

    registry: ToolRegistry
    side_events: SideEvents

    def add(self, message: Message) -> Message: ...

    async def safe_point(self) -> ErrorEvent | None: ...


class ToolHooks(Protocol):
    """The hook events of a tool call (agent/turn/agent_hooks.py AgentHooks)."""

    stop_requested: str | None

    async def pre_tool_use(
        self, call: ToolCall, tool: Tool, args: dict[str, Any], ctx: ToolContext
    ) -> PreToolOutcome: ...

    async def post_tool_use(
        self,
        call: ToolCall,
        tool: Tool,
        args: dict[str, Any],
        output: ToolOutput,
        ctx: ToolContext,
        context: str = "",
    ) -> ToolOutput: ...


class CallHost(Protocol):
    """What one tool call uses (agent/turn/tool_call.py)."""

    registry: ToolRegistry
    permissions: Permissions
    approve: Approver
    checkpoints: CheckpointRecorder | None

    @property
    def hooks(self) -> ToolHooks: ...  # read-only here: a property, so AgentHooks fits

    def tool_context(self, calls: int = 1) -> ToolContext: ...


class HookedAgent(Protocol):
    """What the hooks use of their agent (agent/turn/agent_hooks.py): the permission mode
    (Shift+Tab changes it), what one tool result may take of the window now, the prompts
    queued, and the way into its history."""

    permissions: Permissions
    queued: PromptQueue

    def tool_context(self, calls: int = 1) -> ToolContext: ...

    def add(self, message: Message) -> Message: ...


class RoomHost(Protocol):
    """What making room before a model call uses (agent/turn/room.py)."""

    compactor: Compactor | None
    history: list[Message]
    folds: Folds

    def compact(
        self, *, reason: FoldReason = "manual", focus: str | None = None
    ) -> AsyncIterator[Event]: ...
