"""Maps agent events (a turn's, or a compaction's) onto the conversation and the status bar."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agent.compaction.fold_line import describe_compaction, kilo
from agent.events import (
    CompactionDone,
    CompactionFailed,
    CompactionStarted,
    ErrorEvent,
    Event,
    FoldDropped,
    HookNotice,
    PromptBlocked,
    PromptDelivered,
    Retrying,
    SubagentActivity,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    UsageReported,
)
from sessions.messages import Message, is_summary
from tools.todo_list import TODO_TOOL_NAME
from tui.widgets.assistant_message import AssistantMessage
from tui.widgets.compaction_marker import CompactionMarker
from tui.widgets.conversation import Conversation
from tui.widgets.status_bar import StatusBar
from tui.widgets.thinking_block import ThinkingBlock
from tui.widgets.tool_call import ToolCallBlock

# The status while the model is working on a reply.
THINKING = "thinking"
# The status while a compaction runs.
COMPACTING = "compacting"
# The dim note left where the user interrupted a turn.
INTERRUPTED_NOTE = "interrupted"
# What an open tool block shows when its turn was interrupted (the model is told by the agent).
CANCELLED_RESULT = "cancelled: the turn was interrupted"
# What a fold line says when its compaction was interrupted before it committed.
FOLD_CANCELLED = "compaction interrupted: history unchanged"

AnyEvent = Event  # every event the agent yields


def folded_summary(event: CompactionDone) -> str | None:
    """The summary message that replaced the fold's chunk (a shrink writes none)."""
    head = event.history[1] if len(event.history) > 1 and event.method != "shrink" else None
    return head.content if isinstance(head, Message) and is_summary(head) else None


def running_text(event: CompactionStarted) -> str:
    return f"compacting… ({event.reason}: {event.messages} messages, {kilo(event.tokens)} tokens)"


class TurnView:
    """The widgets of one turn: the reply being streamed, the open tool blocks, the fold line
    of a compaction in progress. `changed` is called when the context size may have moved,
    `delivered` when a queued prompt reached the history, `tasks` when the task list may have
    changed (a todo_write call finished), `blocked` when a hook blocked a prompt (to give it
    back); `cost` gives the session's cost (the agent's usage, folds and sub-agents included)
    when a call was billed."""

    def __init__(
        self,
        conversation: Conversation,
        status: StatusBar,
        changed: Callable[[], None] = lambda: None,
        *,
        busy_state: str = THINKING,
        delivered: Callable[[], None] = lambda: None,
        tasks: Callable[[], None] = lambda: None,
        blocked: Callable[[PromptBlocked], Awaitable[None]] | None = None,
        cost: Callable[[], float | None] = lambda: None,
    ) -> None:
        self.conversation = conversation
        self.status = status
        self.changed = changed
        self.delivered = delivered
        self.tasks = tasks
        self.blocked = blocked
        self.cost = cost  # the session's cost: the agent's usage tally is its one source
        self.busy_state = busy_state
        self.reply: AssistantMessage | None = None
        self.thinking: ThinkingBlock | None = None
        self.tools: dict[str, ToolCallBlock] = {}
        self.fold: CompactionMarker | None = None

    async def show(self, event: AnyEvent) -> None:
        """Render one agent event in place."""
        if isinstance(event, ThinkingDelta):
            if self.thinking is None:
                self.thinking = await self.conversation.add_thinking()
            self.thinking.write(event.text)
            return
        if self.thinking is not None:  # anything else ends the reasoning
            self.thinking.finish()
            self.thinking = None
        if isinstance(event, TextDelta):
            if self.reply is None:
                self.reply = await self.conversation.add_assistant()
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
            if not self.tools:  # calls running side by side (tasks): the state stays "running"
                self.status.state = self.busy_state
            if event.call.name == TODO_TOOL_NAME:
                self.tasks()
            self.changed()
        elif isinstance(event, SubagentActivity):
            if (running := self.tools.get(event.call.id)) is not None:
                running.follow(event.session_id, event.summary)
        elif isinstance(event, PromptDelivered):  # where the model reads it: after the tools
            await self.conversation.add_user(event.text, event.images)
            for note in event.notes:
                await self.conversation.add_notice(note)
            self.delivered()
        elif isinstance(event, UsageReported):
            if event.purpose == "turn":  # the cache share shown is the conversation's
                self.status.usage = event.usage
            self.status.cost = self.cost()  # every call is billed, compression too
            self.changed()
        elif isinstance(event, Retrying):
            await self.conversation.add_notice(
                f"retrying in {event.delay:.1f} s (attempt {event.attempt}): {event.reason}"
            )
            self.status.state = f"retrying (attempt {event.attempt})"
        elif isinstance(event, ErrorEvent):
            await self.conversation.add_notice(event.message, "error")
        elif isinstance(event, HookNotice):
            await self.conversation.add_notice(event.message, "error" if event.failed else "note")
        elif isinstance(event, PromptBlocked):
            await self.conversation.add_notice(event.message, "error")
            if self.blocked is not None:
                await self.blocked(event)
        elif isinstance(event, CompactionStarted) and event.background:
            self.status.folding = "background"  # the turn goes on; its line comes when applied
            if event.note:
                await self.conversation.add_notice(event.note)
        elif isinstance(event, CompactionStarted):
            self.fold = await self.conversation.add_fold(running_text(event))
            self.status.state, self.status.folding = COMPACTING, "running"
        elif isinstance(event, FoldDropped):
            self.status.folding = "idle"
            await self.conversation.add_notice(f"background fold dropped: {event.why}")
        elif isinstance(event, CompactionDone | CompactionFailed):
            await self._end_fold(event)
        elif isinstance(event, TurnDone):
            self.status.state = "idle"
            self.changed()

    async def _end_fold(self, event: CompactionDone | CompactionFailed) -> None:
        text = describe_compaction(event)
        if self.fold is None:
            self.fold = await self.conversation.add_fold(text)
        if isinstance(event, CompactionDone):
            self.fold.settle("done", text, event.chunk, folded_summary(event))
        else:  # a summary the user discarded is no failure
            self.fold.settle("cancelled" if event.discarded else "failed", text)
        self.status.folding = "idle"  # `changed` says "paused" when the compactor is
        self.fold = None
        self.status.state = self.busy_state
        self.changed()

    async def end_reply(self) -> None:
        """Show the rest of the streamed reply: every delta received is on screen after it."""
        if self.reply is not None:
            reply, self.reply = self.reply, None
            await reply.finish()

    async def interrupted(self, *, quiet: bool = False, note: bool = True) -> None:
        """The user interrupted: close what is open and say so (`quiet`: an idle fold the
        user's keypress ended; its line goes away, there is nothing to report; `note`: add the
        "interrupted" line, which a fold line already says for itself)."""
        await self.end_reply()
        for block in self.tools.values():
            await block.finish(CANCELLED_RESULT, True, {})
        self.tools.clear()
        if self.fold is not None:
            if quiet:
                await self.conversation.drop(self.fold)
            else:
                self.fold.settle("cancelled", FOLD_CANCELLED)
            self.fold = None
            self.status.folding = "idle"
        if note and not quiet:
            await self.conversation.add_notice(INTERRUPTED_NOTE)
