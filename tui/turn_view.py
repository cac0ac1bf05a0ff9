"""Maps one turn's agent events onto the conversation and the status bar (no model calls here)."""

from __future__ import annotations

from agent.events import (
    ErrorEvent,
    Event,
    Retrying,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    UsageReported,
)
from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.conversation import Conversation
from tui.widgets.status_bar import StatusBar
from tui.widgets.tool_call import ToolCallBlock

# The status while the model is working on a reply.
THINKING = "thinking"
# The dim note left where the user interrupted a turn.
INTERRUPTED_NOTE = "interrupted"
# What an open tool block shows when its turn was interrupted (the model is told by the agent).
CANCELLED_RESULT = "cancelled: the turn was interrupted"


class TurnView:
    """The widgets of one turn: the reply being streamed and the open tool blocks."""

    def __init__(self, conversation: Conversation, status: StatusBar) -> None:
        self.conversation = conversation
        self.status = status
        self.reply: AssistantMessage | None = None
        self.replies: list[AssistantMessage] = []
        self.tools: dict[str, ToolCallBlock] = {}

    async def show(self, event: Event) -> None:
        """Render one agent event in place."""
        if isinstance(event, TextDelta):
            if self.reply is None:
                self.reply = await self.conversation.add_assistant()
                self.replies.append(self.reply)
            await self.reply.write(event.text)
            return
        await self.end_reply()  # any other event means the streamed text is complete
        if isinstance(event, ToolCallStarted):
            self.tools[event.call.id] = await self.conversation.add_tool_call(event.summary)
            self.status.state = f"running {event.call.name}"
        elif isinstance(event, ToolCallFinished):
            block = self.tools.pop(event.call.id, None)
            if block is None:
                block = await self.conversation.add_tool_call(event.call.name)
            await block.finish(event.text, event.is_error, event.meta)
            self.status.state = THINKING
        elif isinstance(event, UsageReported):
            self.status.usage = event.usage
        elif isinstance(event, Retrying):
            await self.conversation.add_notice(
                f"retrying in {event.delay:.1f} s (attempt {event.attempt}): {event.reason}"
            )
            self.status.state = f"retrying (attempt {event.attempt})"
        elif isinstance(event, ErrorEvent):
            await self.conversation.add_notice(event.message, "error")
        elif isinstance(event, TurnDone):
            self.status.state = "idle"

    async def end_reply(self) -> None:
        """Render the streamed reply once in full."""
        if self.reply is not None:
            reply, self.reply = self.reply, None
            await reply.finish()

    async def interrupted(self) -> None:
        """The user interrupted the turn: close what is open and say so."""
        await self.end_reply()
        for block in self.tools.values():
            await block.finish(CANCELLED_RESULT, True, {})
        self.tools.clear()
        await self.conversation.add_notice(INTERRUPTED_NOTE)
