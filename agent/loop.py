"""The agent: one turn = model call, tool calls, model call ... until a final answer, as events."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

from agent import messages as msg
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
from agent.llm import LLM, LLMError, LLMReply
from agent.messages import Message, ToolCall
from agent.permissions import ApprovalRequest, Approver
from tools.base import ToolContext, ToolError, ToolOutput
from tools.registry import ToolRegistry, validate_arguments

# What the model reads for work the user interrupted; it must know the step did not happen.
CANCELLED_TOOL_RESULT = "cancelled: the user interrupted the turn before this tool call finished"
INTERRUPTED_REPLY_NOTE = "[interrupted by the user]"


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
        on_message: Callable[[Message], None] | None = None,
    ) -> None:
        self.llm = llm
        self.registry = registry
        self.context = ToolContext(workspace=workspace)
        self.approve = approve
        self.max_tool_iterations = max_tool_iterations
        self.on_message = on_message
        self.history: list[Message] = []
        self._next_id = 1
        self._partial: list[str] = []  # text of the reply being streamed, for interruptions
        self.add(Message(role="system", content=system_prompt))

    def add(self, message: Message) -> Message:
        """Append a message with the next stable id; the only way history grows."""
        if not message.id:
            message.id = f"m{self._next_id}"
            self._next_id += 1
        self.history.append(message)
        if self.on_message is not None:
            self.on_message(message)
        return message

    def api_messages(self) -> list[dict]:
        return [m.to_api() for m in self.history]

    async def run_turn(self, prompt: str) -> AsyncIterator[Event]:
        """Run one user request to its end. Interrupting the consumer (task cancellation or
        closing the generator) leaves a valid history: every tool call gets a result."""
        self.add(msg.user(prompt))
        try:
            async for event in self._turn():
                yield event
        except BaseException:
            self._close_interrupted_turn()
            raise

    async def _turn(self) -> AsyncIterator[Event]:
        for iteration in range(1, self.max_tool_iterations + 1):
            reply: LLMReply | None = None
            self._partial = []
            try:
                async for item in self.llm.stream(self.api_messages(), self.registry.schemas()):
                    if isinstance(item, str):
                        self._partial.append(item)
                        yield TextDelta(item)
                    elif isinstance(item, Retrying):
                        yield item
                    else:
                        reply = item
            except LLMError as error:
                self._end_without_reply(f"[no reply: {error.message}]")
                yield ErrorEvent(error.kind, error.message)
                yield TurnDone("error", iterations=iteration)
                return
            assert reply is not None  # the stream always ends with a reply or raises
            self._partial = []
            yield UsageReported(reply.usage, self.llm.model)
            if not reply.text and not reply.tool_calls:
                self._end_without_reply("[empty reply]")
                yield ErrorEvent("bad_reply", "the model returned an empty reply")
                yield TurnDone("error", iterations=iteration)
                return
            self.add(msg.assistant(reply.text or None, reply.tool_calls))
            if not reply.tool_calls:
                if reply.finish_reason == "length":
                    yield ErrorEvent("truncated", "the reply was cut at the output token limit")
                yield TurnDone("answer", text=reply.text, iterations=iteration)
                return
            for call in reply.tool_calls:
                yield ToolCallStarted(call, self._describe(call))
                output = await self._run_tool(call)
                self.add(msg.tool_result(call, output.text, is_error=output.is_error))
                yield ToolCallFinished(call, output.text, output.is_error, output.meta)
        yield ErrorEvent(
            "iteration_cap",
            f"stopped after {self.max_tool_iterations} model calls in one request "
            "(max_tool_iterations); ask again to continue",
        )
        yield TurnDone("iteration_cap", iterations=self.max_tool_iterations)

    def _describe(self, call: ToolCall) -> str:
        tool = self.registry.get(call.name)
        if tool is None:
            return f"{call.name}(?)"
        return tool.describe_call(call.parsed_arguments())

    async def _run_tool(self, call: ToolCall) -> ToolOutput:
        """Validate, ask approval for side effects, run. Every failure becomes a result."""
        tool = self.registry.get(call.name)
        if tool is not None and not tool.read_only:
            try:
                args = validate_arguments(tool, call.arguments)
            except ToolError as error:
                return ToolOutput(str(error), is_error=True)
            preview = await tool.preview(args, self.context)
            decision = await self.approve(ApprovalRequest(call.name, args, preview))
            if not decision.approved:
                why = f": {decision.reason}" if decision.reason else ""
                return ToolOutput(f"refused: the user did not approve {call.name}{why}", True)
        return await self.registry.dispatch(call.name, call.arguments, self.context)

    def _end_without_reply(self, note: str) -> None:
        """Close a turn whose model call failed, keeping user/assistant alternation."""
        partial = "".join(self._partial)
        self._partial = []
        self.add(msg.assistant(f"{partial}\n{note}" if partial else note))

    def _close_interrupted_turn(self) -> None:
        """After an interruption: answer every open tool call, end a cut-off reply."""
        for call in msg.unanswered_calls(self.history):
            self.add(msg.tool_result(call, CANCELLED_TOOL_RESULT, is_error=True, cancelled=True))
        if self.history[-1].role == "user" or self._partial:
            self._end_without_reply(INTERRUPTED_REPLY_NOTE)
