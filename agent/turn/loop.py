"""The agent: one turn = model call, tool calls, model call ... until a final answer, as events."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any

from agent.compaction.engine import Compactor
from agent.events import (
    ErrorEvent,
    Event,
    FoldReason,
    Retrying,
    TextDelta,
    ThinkingDelta,
    TurnDone,
    UsageReported,
)
from agent.hooks.runner import HookRunner
from agent.images.parts import Attachments, Images, request_messages
from agent.images.prompt import Attached, attach_images
from agent.model.errors import LLMError
from agent.model.llm import LLM, LLMReply
from agent.permissions.plan_mode import mode_note
from agent.permissions.policy import READ_ONLY_KEY, Approver, Permissions
from agent.turn import notes as notes
from agent.turn.added_dirs import added_note
from agent.turn.agent_hooks import AgentHooks
from agent.turn.checkpoints import CheckpointRecorder
from agent.turn.folds import Folds, SummaryReview
from agent.turn.goal import goal_note
from agent.turn.nested_instructions import NestedInstructions
from agent.turn.prompt_queue import PromptQueue
from agent.turn.recorder import Recorder
from agent.turn.reply_calls import ReplyCalls
from agent.turn.room import ContextTooSmall, make_room
from agent.turn.side_events import SideEvents
from agent.turn.spending_cap import SpendingCap
from agent.turn.tool_budget import tool_context
from agent.turn.tool_call import run_tool
from sessions import messages as msg
from sessions.image_store import SessionImages
from sessions.journal import now
from sessions.lineage import rewind_record
from sessions.messages import Message, ToolCall
from sessions.usage import UsageTally
from tools.base import OutputKeeper, ToolContext, ToolOutput
from tools.editor_files import EditorFiles
from tools.registry import ToolRegistry
from tools.sandbox.policy import Sandbox

# Compactions forced by the provider's context-overflow error before one model call gives up:
# the first normally suffices; a second covers a misjudged size after pulling back.
MAX_OVERFLOW_RECOVERIES = 2


class Agent:
    """Holds the live history and runs turns against a model and a tool registry."""

    def __init__(
        self,
        llm: LLM,
        registry: ToolRegistry,
        workspace: Path,
        approve: Approver,
        system_prompt: str,
        *,
        max_tool_iterations: int,
        recorder: Recorder | None = None,
        compactor: Callable[[Agent], Compactor] | None = None,
        history: list[Message] | None = None,
        outputs: OutputKeeper | None = None,
        usage: UsageTally | None = None,
        max_budget_usd: float | None = None,
        images: SessionImages | None = None,
        checkpoints: CheckpointRecorder | None = None,
        last_id: int = 0,
        permissions: Permissions | None = None,
        hooks: HookRunner | None = None,
        goal: str | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.llm = llm
        self.registry = registry
        self.attachments = Attachments(images, llm.image_support)  # kept, and sent as parts
        self.context = ToolContext(
            workspace=workspace,
            outputs=outputs,
            images=self.attachments,
            sandbox=sandbox,
            # The run's added directories live on the sandbox all its agents share (its
            # sub-agents' too): agent/turn/added_dirs.py.
            extra_roots=sandbox.added if sandbox is not None else (),
        )
        self.approve = approve
        self.permissions = permissions or Permissions()  # read at every call: agent/permissions
        self.goal = goal  # the session's goal (/goal, --goal): agent/turn/goal.py set_goal
        self.max_tool_iterations = max_tool_iterations
        self.recorder = recorder
        self.checkpoints = checkpoints  # what side-effecting calls change, for /undo
        self._partial: list[str] = []  # text of the reply being streamed, for interruptions
        # Every model call of the session so far (a resumed one starts from its journal).
        self.usage = usage if usage is not None else UsageTally()
        # The spending cap of this run (--max-budget-usd), counted from what was spent so far.
        self.cap = SpendingCap(max_budget_usd, llm, self.usage)
        self.queued = PromptQueue()  # prompts sent while a turn runs: read between tool steps
        self.side_events = SideEvents()  # what sub-agents report while their task calls run
        # A resumed session: exactly the history it had (same prefix, same cache). Ids continue
        # after the highest ever used (`last_id`: a rewound history holds lower ones).
        self.history: list[Message] = list(history or [])
        self._next_id = 1 + max(last_id, msg.last_id_number(self.history))
        if not history:
            self.add(Message(role="system", content=system_prompt))
        self.compactor = compactor(self) if compactor is not None else None
        self.hooks = AgentHooks(hooks, self)  # the user's commands at events (agent_hooks.py)
        self.folds = Folds(self)  # folds now and in the background, shrinks: agent/turn/folds.py
        # A subdirectory's AGENTS.md, the first time a step reaches it: nested_instructions.py.
        self.nested = NestedInstructions(self, workspace)
        # Called as each user turn starts (the skills loaded last turn stop being active:
        # agent/skills/tool.py); a sub-agent's turn is not the user's, so it has none.
        self.turn_starts: list[Callable[[], None]] = []

    def use_editor(self, editor: EditorFiles | None) -> None:
        """From the next tool call on, the file tools read and write through `editor` (a front
        end's, ACP's fs/*: tools/editor_files.py), the sub-agents started after too; None: the
        disk again."""
        self.context = dataclasses.replace(self.context, editor=editor)

    def new_id(self) -> str:
        """The next stable message id of this session."""
        self._next_id += 1
        return f"m{self._next_id - 1}"

    def add(self, message: Message) -> Message:
        """Append a message with the next stable id; the only way history grows."""
        if not message.id:
            message.id = self.new_id()
        self.history.append(message)
        if self.recorder is not None:
            self.recorder.message(message)
        return message

    async def safe_point(self) -> ErrorEvent | None:
        """Everything so far is on disk (a reply, a tool result, a compaction); if the journal
        could not be written since the last safe point, the event that says so. A turn stops
        there: going on would do work no record could bring back."""
        if self.recorder is None:
            return None
        problem = await self.recorder.sync()
        return ErrorEvent("journal", problem) if problem else None

    async def _attach(self, text: str) -> Attached:
        """The images a prompt delivered between tool steps names (agent/images/prompt.py)."""
        return await attach_images(text, self.context.workspace, self.attachments)

    async def api_messages(self) -> list[dict[str, Any]]:
        return await request_messages(self.history, self.attachments)

    async def run_turn(
        self, prompt: str, images: Images = (), meta: dict[str, str] | None = None
    ) -> AsyncGenerator[Event, None]:
        """Run one user request (its images: agent/images/prompt.py; `meta` kept with it, e.g.
        the custom command it was expanded from) to its end. Interrupting the consumer (a
        cancellation, or closing it) leaves every tool call with a result."""
        self.registry.sync()  # tools that became available (MCP servers): at a turn's start only
        checked = await self.hooks.prompt_submitted(prompt)  # SessionStart, UserPromptSubmit
        for event in checked:  # what the hooks said; a blocked prompt ends the turn here
            yield event
        if checked and isinstance(checked[-1], TurnDone):
            return
        request = self.add(msg.user(prompt, images, **(meta or {})))
        for started in self.turn_starts:
            started()
        if self.checkpoints is not None:
            self.checkpoints.start_turn(request)
        # Said with the prompt: plan mode or its end (agent/permissions/plan_mode.py), and the
        # goal when it was set, changed or cleared since the model was told (agent/turn/goal.py),
        # and the added directories likewise (agent/turn/added_dirs.py).
        said = (
            mode_note(self.permissions.mode, self.history),
            goal_note(self.goal, self.history),
            added_note(self.context.extra_roots, self.history),
        )
        for note in filter(None, said):
            self.add(note)
        self.hooks.add_context()  # what SessionStart and UserPromptSubmit hooks printed
        self.nested.add_notes()  # what the user added to AGENTS.md since (`#` prompts)
        if (problem := await self.safe_point()) is not None:
            yield problem
            self._end_without_reply(notes.UNRECORDED_NOTE)
            yield TurnDone("error")
            return
        reading = READ_ONLY_KEY in (meta or {})  # /review: writes and commands are refused
        try:
            async with aclosing(self._turn()) as turn:  # closed, it stops the calls it runs
                with self.permissions.reading_only(reading):  # the mode stays as it was
                    async for event in turn:
                        for notice in self.hooks.take_notices():  # what hooks said meanwhile
                            yield notice
                        yield event
        except BaseException:
            self._close_interrupted_turn()
            raise

    def compact(
        self,
        *,
        reason: FoldReason = "manual",
        focus: str | None = None,
        review: SummaryReview | None = None,
        before: str | None = None,
    ) -> AsyncGenerator[Event, None]:
        """Fold the history now (/compact [--preview] [focus]; /rewind's "fold up to here"
        stops `before` a message): agent/turn/folds.py."""
        return self.folds.compact(reason=reason, focus=focus, review=review, before=before)

    def record_usage(self, event: UsageReported) -> None:
        """Journal and tally one model call's usage (a turn's, a compression's, a sub-agent's)."""
        self.usage.add(event.usage, event.purpose)
        if self.recorder is not None:
            self.recorder.usage(event.model, event.usage, event.purpose)

    def make_room(self, *, overflow: bool = False) -> AsyncIterator[Event]:
        """The ladder before a model call (agent/turn/room.py)."""
        return make_room(self, overflow=overflow)

    def schemas(self) -> list[dict[str, Any]]:
        """The tool schemas every request carries (a fold's call carries the same)."""
        return self.registry.schemas()

    async def _turn(self) -> AsyncGenerator[Event, None]:
        for iteration in range(1, self.max_tool_iterations + 1):
            if iteration > 1:  # prompts the user sent meanwhile: this call reads them
                await self.nested.after_tools()  # and the nested AGENTS.md the last step reached
                for delivered in await self.hooks.deliver_queued(self._attach):
                    yield delivered
            reply: LLMReply | None = None
            recoveries = 0
            while reply is None:
                if self.compactor is not None:
                    try:
                        async for event in self.make_room(overflow=recoveries > 0):
                            yield event
                    except ContextTooSmall as error:
                        if not (error.request_too_big and self._take_back_request()):
                            self._end_without_reply(f"[no reply: {error}]")
                        yield ErrorEvent("context_overflow", str(error))
                        yield TurnDone("error", iterations=iteration)
                        return
                self._partial = []
                sent = len(self.history)
                tokens = 0  # the request's size, for the spending cap (counted only under one)
                if self.compactor is not None and self.cap.limit is not None:
                    tokens = self.compactor.tokens.estimate(self.history)
                if (refusal := self.cap.refusal(tokens)) is not None:
                    self._end_without_reply(f"[not sent: {refusal}]")
                    yield ErrorEvent("budget", refusal)
                    yield TurnDone("error", iterations=iteration)
                    return
                try:
                    messages, tools = await self.api_messages(), self.registry.schemas()
                    stream = self.llm.stream(messages, tools, max_tokens=self._reserve())
                    async for item in stream:
                        if isinstance(item, str):
                            self._partial.append(item)
                            yield TextDelta(item)
                        elif isinstance(item, Retrying | ThinkingDelta):
                            yield item
                        else:
                            reply = item
                except LLMError as error:
                    overflow = error.kind == "context_overflow" and not self._partial
                    if (
                        overflow
                        and self.compactor is not None
                        and recoveries < MAX_OVERFLOW_RECOVERIES
                    ):
                        recoveries += 1
                        self.compactor.learn_from_overflow(error.limits, self.history)
                        continue
                    self._end_without_reply(f"[no reply: {error.message}]")
                    yield ErrorEvent(error.kind, error.message)
                    yield TurnDone("error", iterations=iteration)
                    return
            self._partial = []
            if self.compactor is not None:
                self.compactor.tokens.report(reply.usage.prompt_tokens, self.history, sent)
            reported = UsageReported(reply.usage, self.llm.model)
            self.record_usage(reported)
            yield reported
            if not reply.text and not reply.tool_calls:
                self._end_without_reply("[empty reply]")
                yield ErrorEvent("bad_reply", "the model returned an empty reply")
                yield TurnDone("error", iterations=iteration)
                return
            cut = reply.finish_reason == "length"
            self.add(
                msg.assistant(
                    reply.text or None,
                    reply.tool_calls,
                    thinking_blocks=reply.thinking_blocks,
                    reasoning_content=reply.reasoning_content,
                    meta={msg.CUT_KEY: True} if cut else None,
                )
            )
            if (problem := await self.safe_point()) is not None:
                yield problem
                self._close_interrupted_turn(notes.UNRECORDED_TOOL_RESULT, notes.UNRECORDED_NOTE)
                yield TurnDone("error", iterations=iteration)
                return
            if cut:
                yield ErrorEvent("truncated", notes.TRUNCATED_MESSAGE)
            if not reply.tool_calls:
                if (nudge := await self.hooks.stop(reply.text)) is None:
                    yield TurnDone("answer", text=reply.text, iterations=iteration)
                    return
                self.add(nudge)  # a Stop hook asked to go on (agent/turn/agent_hooks.py)
                continue
            calls = ReplyCalls(self, reply.tool_calls, cut, self._run_tool)  # task: side by side
            async with aclosing(calls.run()) as events:
                async for event in events:
                    yield event
            if calls.problem is not None:
                yield calls.problem
                self._close_interrupted_turn(notes.UNRECORDED_TOOL_RESULT, notes.UNRECORDED_NOTE)
                yield TurnDone("error", iterations=iteration)
                return
            if (stop := self.hooks.take_stop()) is not None:  # a hook's `continue: false`
                for notice in self.hooks.take_notices():
                    yield notice
                yield ErrorEvent("hook", f"a hook stopped the turn: {stop}")
                yield TurnDone("error", iterations=iteration)
                return
        yield ErrorEvent(
            "iteration_cap",
            f"stopped after {self.max_tool_iterations} model calls in one request "
            "(max_tool_iterations); ask again to continue",
        )
        yield TurnDone("iteration_cap", iterations=self.max_tool_iterations)

    def _reserve(self) -> int | None:
        """Output tokens the window keeps for the reply (sent as max_tokens where needed)."""
        return self.compactor.budget.reserved if self.compactor is not None else None

    def tool_context(self, calls: int = 1) -> ToolContext:
        """The context of one of `calls` tool runs of a reply (agent/turn/tool_budget.py)."""
        return tool_context(self.context, self.compactor, self.history, calls)

    async def _run_tool(self, call: ToolCall, calls: int = 1) -> ToolOutput:
        """One call: arguments, hooks, permissions, checkpoint (agent/turn/tool_call.py)."""
        return await run_tool(self, call, calls)

    def _take_back_request(self) -> bool:
        """A request too big for the window by itself leaves the conversation, as a rewind of
        it (journaled: a resume does not bring it back), so no later request carries it past
        the window; False when this session keeps no turns to rewind (it then stays, answered
        by the refusal)."""
        recorder = self.checkpoints
        index = next(
            (
                i
                for i in range(len(self.history) - 1, -1, -1)
                if self.history[i].role == "user" and not self.history[i].meta.get("injected")
            ),
            None,
        )
        if recorder is None or index is None or not recorder.knows_turn(self.history[index].id):
            return False
        request, before = self.history[index], self.history[:index]
        files: dict[str, list[str]] = {"restored": [], "removed": [], "kept": []}
        recorder.record(
            rewind_record(request.id, "conversation", request.content or "", now(), files, before)
        )
        self.history = list(before)
        if self.compactor is not None:
            self.compactor.tokens.reset_report()
        return True

    def _end_without_reply(self, note: str) -> None:
        """Close a turn whose model call failed, keeping user/assistant alternation, with a
        message marked as pleat's (msg.NO_REPLY_KEY), not the model's."""
        partial = "".join(self._partial)
        self._partial = []
        text = f"{partial}\n{note}" if partial else note
        self.add(msg.assistant(text, meta={msg.NO_REPLY_KEY: True}))

    def _close_interrupted_turn(
        self, result: str = notes.CANCELLED_TOOL_RESULT, note: str = notes.INTERRUPTED_REPLY_NOTE
    ) -> None:
        """After an interruption (or a stop): answer every open tool call with `result`, end a
        cut-off reply with `note`."""
        for call in msg.unanswered_calls(self.history):
            self.add(msg.tool_result(call, result, is_error=True, cancelled=True))
        if self.history[-1].role == "user" or self._partial:
            self._end_without_reply(note)
