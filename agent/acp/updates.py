"""A session's events as ACP session updates: the answer and the reasoning as chunks, tool calls
with their kind and status, the task list as a plan, every fold as a tool call of its own, the
context's fill as usage updates."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    Cost,
    PlanEntry,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)

from agent.acp.tool_calls import edit_diff, kind_of, locations, text_content
from agent.compaction.fold_line import describe_compaction
from agent.events import (
    CommandOutput,
    CompactionDone,
    CompactionFailed,
    CompactionStarted,
    ErrorEvent,
    FoldDropped,
    HookNotice,
    Notice,
    PromptBlocked,
    Retrying,
    SessionEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    UsageReported,
)
from agent.terminal_text import visible
from tools.todo_list import TODO_TOOL_NAME, current_todos

if TYPE_CHECKING:
    from agent.turn.loop import Agent

Update = (
    AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | UsageUpdate
)
# pleat's task states in ACP's plan words.
PLAN_STATUS = {"pending": "pending", "in_progress": "in_progress", "done": "completed"}


def message(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


def thought(text: str) -> AgentThoughtChunk:
    return AgentThoughtChunk(
        session_update="agent_thought_chunk", content=TextContentBlock(type="text", text=text)
    )


def notice_text(text: str, *, failed: bool = False) -> str:
    """A line the session says beside the answer, set apart from it (a quote), visible."""
    mark = "**pleat: error:** " if failed else "pleat: "
    return f"\n\n> {mark}{visible(text)}\n\n"


def tool_started(workspace: Path, event: ToolCallStarted, call_id: str) -> ToolCallStart:
    call = event.call
    args: dict[str, Any] = call.parsed_arguments()
    return ToolCallStart(
        session_update="tool_call",
        tool_call_id=call_id,
        title=visible(event.summary),
        kind=kind_of(call.name),
        status="in_progress",
        locations=locations(workspace, args),
        content=edit_diff(workspace, call.name, args),
        raw_input=args,
    )


def tool_finished(event: ToolCallFinished, call_id: str) -> ToolCallProgress:
    content = text_content(event.text)
    diff = event.meta.get("diff") if isinstance(event.meta, dict) else None
    if isinstance(diff, str) and diff:  # the edit as made: the unified diff, after the line
        content = text_content(f"{event.text}\n\n{diff}")
    return ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=call_id,
        status="failed" if event.is_error else "completed",
        content=content,
    )


def cancelled_call(call_id: str) -> ToolCallProgress:
    """A call a cancel cut short: failed, as the agent answered it."""
    return ToolCallProgress(
        session_update="tool_call_update",
        tool_call_id=call_id,
        status="failed",
        content=text_content("cancelled"),
    )


def plan_update(agent: Agent) -> AgentPlanUpdate | None:
    """The session's task list (todo_write) as ACP's plan; None when it never had one."""
    todos = current_todos(agent.history)
    if todos is None:
        return None
    entries = [
        PlanEntry(content=visible(t.content), priority="medium", status=PLAN_STATUS[t.status])  # type: ignore[arg-type]
        for t in todos
    ]
    return AgentPlanUpdate(session_update="plan", entries=entries)


async def usage_update(agent: Agent) -> UsageUpdate | None:
    """How full the context is (the next request's size against the window: the terminal's
    meter) and what the session cost so far; counted in a thread (the first count loads the
    tokenizer)."""
    from agent.slash.context_report import gauge

    meter = await asyncio.to_thread(gauge, agent)
    if meter is None:
        return None
    cost = agent.usage.cost
    return UsageUpdate(
        session_update="usage_update",
        used=max(0, meter.used),
        size=max(0, meter.window),
        cost=Cost(amount=cost, currency="USD") if cost is not None else None,
    )


class UpdateStream:
    """Turns one session's events into updates; keeps which fold is open (its events carry no
    id) so its end updates the tool call its start made."""

    def __init__(self, agent: Agent, session_id: str) -> None:
        self.agent = agent
        self.session_id = session_id
        self._folds = 0
        self._open_fold: str | None = None
        # The editor's id of each call: the model's ids repeat (a server that gives none, a
        # model that reuses them), the editor's must not within a session.
        self._calls = 0
        self._ids: dict[str, str] = {}

    def editor_id(self, model_id: str, *, new: bool = False) -> str:
        """The editor's id of the model's call `model_id` (a fresh one when `new`)."""
        if new or model_id not in self._ids:
            self._calls += 1
            self._ids[model_id] = f"call-{self._calls}-{model_id}"
        return self._ids[model_id]

    async def updates(self, event: SessionEvent) -> list[Update]:
        agent = self.agent
        workspace = agent.context.workspace
        if isinstance(event, TextDelta):  # the model's bytes: every control character shown
            return [message(visible(event.text))]
        if isinstance(event, ThinkingDelta):
            return [thought(visible(event.text))]
        if isinstance(event, ToolCallStarted):
            return [tool_started(workspace, event, self.editor_id(event.call.id, new=True))]
        if isinstance(event, ToolCallFinished):
            done: list[Update] = [tool_finished(event, self.editor_id(event.call.id))]
            if event.call.name == TODO_TOOL_NAME and (plan := plan_update(agent)) is not None:
                done.append(plan)
            return done
        if isinstance(event, UsageReported):
            return [u for u in [await usage_update(agent)] if u is not None]
        if isinstance(event, CompactionStarted | CompactionDone | CompactionFailed | FoldDropped):
            return await self._fold(event)
        if isinstance(event, HookNotice):
            return [
                message(notice_text(f"{event.event} hook: {event.message}", failed=event.failed))
            ]
        if isinstance(event, Notice):
            return [message(notice_text(event.message, failed=event.level == "error"))]
        if isinstance(event, CommandOutput):
            return [message(visible(event.text) + "\n")]
        if isinstance(event, PromptBlocked):
            return [message(notice_text(f"the prompt was blocked: {event.message}", failed=True))]
        if isinstance(event, Retrying):
            return [thought(f"retrying in {event.delay:.0f} s ({event.reason})\n")]
        if isinstance(event, ErrorEvent):
            return [message(notice_text(event.message, failed=event.kind != "truncated"))]
        return []

    def interrupted(self) -> list[Update]:
        """The fold a cancel cut short, ended (nothing of it was applied)."""
        fold_id, self._open_fold = self._open_fold, None
        return [cancelled_call(fold_id)] if fold_id is not None else []

    async def _fold(
        self, event: CompactionStarted | CompactionDone | CompactionFailed | FoldDropped
    ) -> list[Update]:
        """A fold is a tool call: started with what it folds, ended with the fold line (what
        went where, how much it freed), and the usage going down after it."""
        if isinstance(event, CompactionStarted):
            self._folds += 1
            self._open_fold = f"fold-{self.session_id}-{self._folds}"
            where = " in the background" if event.background else ""
            return [
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id=self._open_fold,
                    title=f"Folding {event.messages} messages ({event.reason}){where}",
                    kind="other",
                    status="in_progress",
                    content=text_content(event.note) if event.note else None,
                )
            ]
        fold_id, self._open_fold = self._open_fold, None
        if fold_id is None:  # its start was not seen (a background fold begun in another turn)
            self._folds += 1
            fold_id = f"fold-{self.session_id}-{self._folds}"
        if isinstance(event, FoldDropped):
            line, status = f"fold dropped: {event.why}", "failed"
        else:
            line = describe_compaction(event)
            status = "completed" if isinstance(event, CompactionDone) else "failed"
        ended: list[Update] = [
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=fold_id,
                title="Folded the conversation" if status == "completed" else "Fold failed",
                kind="other",
                status=status,  # type: ignore[arg-type]
                content=text_content(line),
            )
        ]
        if (usage := await usage_update(self.agent)) is not None:
            ended.append(usage)
        return ended
