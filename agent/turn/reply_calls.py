"""A reply's tool calls: run in order, except that concurrent ones (`task`) next to each other run
side by side; every result enters the history in call order, each at a safe point.

Most tools run one after another, because their order matters (an edit, then the test). A run
of consecutive calls to concurrent tools is started together, each in its own asyncio task: the
front end sees all of them start, each finish as it finishes, and meanwhile the side events
their work reports (a sub-agent's activity and usage: agent/turn/side_events.py). Interrupted, the
calls still running are cancelled and awaited, and every call of the run gets its result in
order: the real one where it finished, "cancelled" where it did not.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Any

from agent.events import ErrorEvent, Event, ToolCallFinished, ToolCallStarted
from agent.turn import notes as notes
from agent.turn.ports import ReplyHost
from sessions import messages as msg
from sessions.messages import ToolCall
from tools.base import ToolOutput
from tools.task import RUNNING_CALL

# Runs one call of a reply of `calls` calls (Agent._run_tool).
RunTool = Callable[[ToolCall, int], Awaitable[ToolOutput]]


def runs(calls: Sequence[ToolCall], concurrent: Callable[[ToolCall], bool]) -> list[list[ToolCall]]:
    """The calls cut into runs: each concurrent call joins the run of concurrent calls just
    before it; every other call is a run of its own."""
    cut: list[list[ToolCall]] = []
    for call in calls:
        if cut and concurrent(call) and concurrent(cut[-1][0]):
            cut[-1].append(call)
        else:
            cut.append([call])
    return cut


class ReplyCalls:
    """Runs the tool calls of one reply for `agent`; `problem` is set when a result could not
    be journaled (the turn stops there, as the loop says)."""

    def __init__(
        self, agent: ReplyHost, calls: Sequence[ToolCall], cut: bool, run: RunTool
    ) -> None:
        self.agent = agent
        self.calls = list(calls)
        self.cut = cut  # the reply was cut at the output limit: a failed call is told why
        self.run_tool = run
        self.problem: ErrorEvent | None = None

    def _concurrent(self, call: ToolCall) -> bool:
        tool = self.agent.registry.get(call.name)
        return tool is not None and tool.concurrent

    async def run(self) -> AsyncGenerator[Event, None]:
        """Every call's events; closed early (the consumer interrupted), the run in progress
        is settled before this returns (aclosing: no call is left running)."""
        for batch in runs(self.calls, self._concurrent):
            if len(batch) == 1 and not self._concurrent(batch[0]):
                events = self._one(batch[0])
            else:
                events = self._side_by_side(batch)
            async with aclosing(events) as stream:
                async for event in stream:
                    yield event
            if self.problem is not None:
                return

    async def _output(self, call: ToolCall) -> ToolOutput:
        output = await self.run_tool(call, len(self.calls))
        if self.cut and output.is_error:
            output = dataclasses.replace(output, text=f"{output.text}\n{notes.CUT_ARGUMENTS_NOTE}")
        return output

    def _add(self, call: ToolCall, output: ToolOutput) -> None:
        self.agent.add(msg.tool_result(call, output.text, output.images, **output.message_meta()))

    async def _one(self, call: ToolCall) -> AsyncGenerator[Event, None]:
        yield ToolCallStarted(call, self.agent.registry.describe(call))
        output = await self._output(call)
        self._add(call, output)
        self.problem = await self.agent.safe_point()
        yield ToolCallFinished(call, output.text, output.is_error, output.meta)

    async def _in_task(self, call: ToolCall) -> ToolOutput:
        RUNNING_CALL.set(call)  # this task's own context: the tool knows which call it answers
        return await self._output(call)

    async def _side_by_side(self, batch: list[ToolCall]) -> AsyncGenerator[Event, None]:
        for call in batch:
            yield ToolCallStarted(call, self.agent.registry.describe(call))
        tasks = [asyncio.ensure_future(self._in_task(call)) for call in batch]
        outputs: dict[int, ToolOutput] = {}
        answered = 0
        side = self.agent.side_events
        waiting: asyncio.Future[Event] | None = None
        try:
            while answered < len(batch):
                if waiting is None:
                    waiting = asyncio.ensure_future(side.next())
                running: set[asyncio.Future[Any]] = {
                    t for i, t in enumerate(tasks) if i not in outputs
                }
                done, _ = await asyncio.wait(
                    {*running, waiting}, return_when=asyncio.FIRST_COMPLETED
                )
                if waiting in done:
                    yield waiting.result()
                    waiting = None
                for event in side.pending():
                    yield event
                for index, task in enumerate(tasks):
                    if task in done:
                        outputs[index] = output = task.result()
                        yield ToolCallFinished(
                            batch[index], output.text, output.is_error, output.meta
                        )
                while answered < len(batch) and answered in outputs:
                    self._add(batch[answered], outputs[answered])
                    answered += 1
                    if (problem := await self.agent.safe_point()) is not None:
                        self.problem = problem
                        return
            if waiting is not None and waiting.done():
                yield waiting.result()
            elif waiting is not None:
                waiting.cancel()  # an event it was woken for stays queued: taken next
            waiting = None
            for event in side.pending():
                yield event
        finally:
            if waiting is not None:
                waiting.cancel()
            await self._settle(batch, tasks, outputs, answered)
            side.pending()  # what the calls said before they were stopped: nobody shows it

    async def _settle(
        self,
        batch: list[ToolCall],
        tasks: Sequence[asyncio.Future[ToolOutput]],
        outputs: dict[int, ToolOutput],
        answered: int,
    ) -> None:
        """After the run (finished, stopped or interrupted): the calls still running are
        cancelled and awaited; unless the journal failed, every call not yet answered is, in
        call order: with its output where it finished, "cancelled" where it did not."""
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.problem is not None:
            return  # the loop answers the rest: nothing more can be journaled
        for index in range(answered, len(batch)):
            task = tasks[index]
            output = outputs.get(index)
            if output is None and task.done() and not task.cancelled() and not task.exception():
                output = task.result()
            call = batch[index]
            if output is not None:
                self._add(call, output)
            else:
                self.agent.add(
                    msg.tool_result(
                        call, notes.CANCELLED_TOOL_RESULT, is_error=True, cancelled=True
                    )
                )
