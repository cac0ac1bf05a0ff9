"""`--output-format json | stream-json` (and the choice of a run's one reporter: text, json or
stream-json): a headless run reported as Claude Code's SDK messages, so
scripts and SDKs written for `claude -p` read pleat's output.

`json` prints the result object when the run ends (agent/headless/result.py). `stream-json`
prints one object per line as the run goes: the `system`/`init` line (agent/headless/init_line.py),
each assistant reply and each tool result (a `user` message holding a `tool_result`), those of
sub-agents under the id of their `task` call (`parent_tool_use_id`), a `system`/
`compact_boundary` line for each fold (agent/headless/lines.py), then the same result object.
A note pleat wrote where a reply did not come (a failed call) is never shown as the model's:
the run's error is the result's. Every line is ASCII (`json.dumps`' default): no byte the model
sent reaches the terminal as a control character.
"""

from __future__ import annotations

import dataclasses
import io
import json
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, TextIO

from agent.claude_code.tools import MS_PER_SECOND, claude_input, claude_name
from agent.events import (
    CompactionDone,
    ErrorKind,
    Event,
    SubagentMessage,
    TextDelta,
    ThinkingDelta,
    TurnDone,
    UsageReported,
)
from agent.headless.exit_codes import EXIT_KEPT, EXIT_OK
from agent.headless.init_line import init_line
from agent.headless.lines import Lines, compact_boundary, stop_reason
from agent.headless.progress import say_progress
from agent.headless.result import ModelFacts, Outcome, RunRecord, run_usage
from agent.headless.text_report import TextReport
from sessions.messages import NO_REPLY_KEY, Message, ToolCall, unseen
from sessions.usage import Usage
from tools.result_facts import ResultFacts

if TYPE_CHECKING:
    from agent.mcp.manager import McpServers
    from agent.turn.loop import Agent

# What --output-format takes: the answer as text, one result object, or one object a line.
OutputFormat = Literal["text", "json", "stream-json"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "stream-json")


class JsonReport:
    """`json`: follows one headless run's events and prints its result object at the end."""

    def __init__(
        self,
        agent: Agent,
        session_id: str,
        out: TextIO,
        err: TextIO,
        *,
        mcp: McpServers | None = None,
        commands: Iterable[str] = (),
    ) -> None:
        self.agent = agent
        self.session_id = session_id
        self.out = out
        self.err = err
        self.answer_out = io.StringIO()  # a slash command's answer: the result's text
        self.mcp = mcp
        self.commands = tuple(commands)  # the headless slash commands, for the init line
        self.started = time.monotonic()
        self.usage_before = dataclasses.replace(agent.usage)
        self.record = RunRecord()
        self.lines = Lines(session_id, agent.context.workspace)
        self._shown = {message.id for message in agent.history}  # by id: folds rebuild it
        self._calls: dict[str, ToolCall] = {}  # every call seen, by id (for the denials)
        self._reply_usage: Usage | None = None  # of the call whose reply is not shown yet

    def _print(self, record: dict[str, Any]) -> None:
        self.out.write(json.dumps(record) + "\n")  # ASCII: no control byte reaches the terminal
        self.out.flush()

    def line(self, record: dict[str, Any]) -> None:
        """A line of the run: stream-json prints it, json only counts what it says."""

    def start(self) -> None:
        """The run begins (stream-json: its init line)."""

    def event(self, event: Event, *, progress: bool = True) -> None:
        """Take one event of the run: its line on stderr (`progress`), as in every format; the
        messages it completed."""
        if progress:
            say_progress(event, self.err)
        if isinstance(event, UsageReported):
            self.record.add_usage(event.usage, event.model)
            if event.purpose == "turn":
                self._reply_usage = event.usage
        elif isinstance(event, CompactionDone):
            self.record.compactions += 1
            self.line(compact_boundary(event, self.session_id))
        elif isinstance(event, TurnDone):
            self.record.turns += event.iterations
        elif isinstance(event, SubagentMessage):
            self._subagent(event)
        if not isinstance(event, TextDelta | ThinkingDelta):
            self._new_messages()

    def _new_messages(self) -> None:
        """The run's messages added since the last look: replies and tool results."""
        for message in unseen(self.agent.history, self._shown):
            if message.role == "assistant":
                usage, self._reply_usage = self._reply_usage, None
                if not message.meta.get(NO_REPLY_KEY):
                    self.record.stop_reason = stop_reason(message)
                    self._calls.update((call.id, call) for call in message.tool_calls)
                    self.line(self.lines.assistant(message, self.agent.llm.model, usage))
            elif message.role == "tool":
                self._denied(message)
                self.line(self.lines.tool_result(message))

    def _subagent(self, event: SubagentMessage) -> None:
        """A sub-agent's message, under its task call: its prompt, replies and tool results."""
        message = event.message
        lines = Lines(
            self.session_id,
            self.agent.context.workspace,
            parent=event.call.id,
            conversation_id=event.session_id,
        )
        if message.role == "assistant" and not message.meta.get(NO_REPLY_KEY):
            self._calls.update((call.id, call) for call in message.tool_calls)
            self.line(lines.assistant(message, event.model, event.usage))
        elif message.role == "tool":
            self._denied(message)
            self.line(lines.tool_result(message))
        elif message.role == "user" and not message.meta.get("injected"):
            self.line(lines.prompt(message))

    def _denied(self, result: Message) -> None:
        """Count a tool result of a call that was refused (by the permission check, or a
        PreToolUse hook: tools/result_facts.py)."""
        call = self._calls.get(result.tool_call_id or "")
        facts = ResultFacts.of_message(result.meta)
        if call is not None and facts is not None and facts.refused:
            args = call.parsed_arguments()
            workspace = self.agent.context.workspace
            self.record.denials.append(
                {
                    "tool_name": claude_name(call.name),
                    "tool_use_id": call.id,
                    "tool_input": claude_input(call.name, args, workspace),
                    "pleat_name": call.name,
                    "pleat_input": args,
                }
            )

    def _facts(self) -> dict[str, ModelFacts]:
        """The window and output limit of the run's model (other models': unknown)."""
        llm, compactor = self.agent.llm, self.agent.compactor
        if llm.model not in self.record.models:
            return {}  # no call made: nothing to ask litellm about
        window = compactor.budget.window if compactor is not None else llm.context_window()
        most = llm.reply_limits()[1] or (compactor.budget.reserved if compactor else 0)
        return {llm.model: ModelFacts(window, most)}

    def finish(
        self,
        done: TurnDone | None,
        error: str | None,
        answer: str = "",
        kind: ErrorKind | None = None,
    ) -> None:
        """The result object, printed last in both formats; `error` is the run's error line
        (of `kind`), `answer` the text of a slash command that made no turn."""
        self._new_messages()
        cost = (self.agent.usage.cost or 0.0) - (self.usage_before.cost or 0.0)
        self._print(
            self.record.result(
                Outcome(done, error, kind, answer),
                session_id=self.session_id,
                duration_ms=round((time.monotonic() - self.started) * MS_PER_SECOND),
                cost=cost,
                usage=run_usage(self.usage_before, self.agent.usage),
                facts=self._facts(),
            )
        )

    def end_text(self) -> None:
        """No text was written: the answer is the result's."""

    def command_finished(
        self, command: str, code: int, errors: list[str], last: str | None
    ) -> None:
        """A slash command ended with `code`: the result says what it printed (and, for an undo
        that kept some files, what it kept), or its last error line (`last`)."""
        answer = self.answer_out.getvalue().strip()
        if code == EXIT_KEPT:  # an undo done, keeping some files: what it kept is the news
            answer = "\n".join([answer, *errors]).strip()
        failed = None if code in (EXIT_OK, EXIT_KEPT) else (last or f"{command} failed")
        self.finish(TurnDone("answer" if failed is None else "error", text=answer), failed)


class StreamJsonReport(JsonReport):
    """`stream-json`: the same, with a line for each message and fold as the run goes."""

    def line(self, record: dict[str, Any]) -> None:
        self._print(record)

    def start(self) -> None:
        self._print(init_line(self.agent, self.session_id, self.mcp, self.commands))


def reporter_for(
    output_format: OutputFormat,
    agent: Agent,
    session_id: str,
    out: TextIO,
    err: TextIO,
    *,
    mcp: McpServers | None = None,
    commands: Iterable[str] = (),
) -> Reporter:
    """The one reporter of a run, chosen once by its output format."""
    if output_format == "text":
        return TextReport(out, err)
    kind = StreamJsonReport if output_format == "stream-json" else JsonReport
    return kind(agent, session_id, out, err, mcp=mcp, commands=commands)


# A headless run's reporter: text, json or stream-json.
Reporter = TextReport | JsonReport
