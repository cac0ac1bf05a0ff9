"""Sub-agents: what runs a `task` call. A second Agent with a fresh context, its own compaction and
its own journal (a sub-session linked to its parent), sharing the parent's permissions,
approvals, checkpoints and spending; only its final answer goes back, as the call's result.

The sub-agent gets the parent's system prompt (or its agent definition's) and the parent's tools
but `task` (one level deep) and exit_plan_mode; read_archive reads its own archive. Its calls ask
the parent's approver, one question at a time, saying which task asks; its file changes are
kept by the parent's checkpoint recorder as part of the parent's turn (undoing the turn undoes
them); each of its model calls is added to the parent's usage as it is made (purpose
"subagent"), so the spending cap holds over both. Its hooks are the parent's, run as a
sub-agent's (agent/turn/agent_hooks.py: no prompt events, SubagentStop for Stop, the payload naming
it). The front end hears of it through the parent's side events: its session when it starts,
each tool call it makes, each message of its conversation, its usage, and what its hooks say (a
block, a failure), naming its task. A definition with `isolation: worktree` runs it in a git
worktree of its own, outside the parent's checkpoints (agent/subagents/isolation.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from contextlib import aclosing
from pathlib import Path

from agent.config import Config
from agent.events import (
    ErrorEvent,
    HookNotice,
    SubagentActivity,
    SubagentMessage,
    ToolCallStarted,
    TurnDone,
    UsageReported,
)
from agent.model.llm import LLM
from agent.permissions.policy import ApprovalRequest, Approver, Decision
from agent.subagents.definitions import NOT_FOR_SUBAGENTS, AgentDefinition, Definitions
from agent.subagents.isolation import open_worktree, reported, sandbox_in, settle_worktree
from agent.turn.compactor import compactor_for
from agent.turn.loop import Agent
from agent.turn.system_prompt import system_prompt
from sessions.lock import SessionBusy
from sessions.messages import Message, unseen
from sessions.redact import KnownSecrets
from sessions.store import SUBAGENT, Session, SessionError
from sessions.usage import Usage
from tools.archive_reader import ArchiveReaderTool
from tools.background_commands import BackgroundCommands
from tools.background_tools import with_background
from tools.base import ToolContext, ToolError, ToolOutput
from tools.git_worktrees import Worktree
from tools.registry import ToolRegistry
from tools.result_facts import ResultFacts
from tools.task import (
    DEFAULT_AGENT,
    MAX_DESCRIPTION_CHARS,
    RUNNING_CALL,
    TASK_TOOL,
    TaskRequest,
    TaskTool,
)

# Sub-agents of one agent running at once; more task calls in a reply wait for a slot. Each
# streams from the same provider under the same rate limit, so past a few the extra ones mostly
# wait on 429s; four covers the usual fan-out (explore a few areas, review a few files).
MAX_PARALLEL = 4
# Files a task's result names as changed by its sub-agent (for the parent's compaction ledger);
# more are summed up by the ledger's own bounds anyway.
MAX_FILES_NAMED = 50
# Said to every sub-agent after its system prompt: what its answer is for.
SUBAGENT_NOTE = (
    "You are a sub-agent: another agent handed you the task in the next message. Work on it "
    "with your tools, then end with a complete, self-contained answer: it is all the other "
    "agent receives of your work (it does not see your tool calls or their results)."
)


class Subagents:
    """Runs the `task` calls of one agent (`parent`, set once it is built)."""

    def __init__(
        self,
        config: Config,
        workspace: Path,
        session: Session,
        definitions: Definitions,
        secrets: Sequence[str],
        known: KnownSecrets,
    ) -> None:
        self.config = config
        self.workspace = workspace
        self.session = session  # the parent's: its sub-sessions name it
        self.definitions = definitions
        self.secrets = list(secrets)
        self.known = known
        self.parent: Agent | None = None
        # Made on first use, in the loop that runs the tasks.
        self._slots: asyncio.Semaphore | None = None
        self._asking: asyncio.Lock | None = None

    async def run(self, request: TaskRequest, ctx: ToolContext) -> ToolOutput:
        """Run one task to its end (tools.task.TaskRunner); a failure to start is a ToolError."""
        parent = self.parent
        assert parent is not None, "the sub-agents' parent is set by agent.assemble"
        definition = self.definitions.agents.get(request.agent)
        if definition is None and request.agent != DEFAULT_AGENT:
            known = ", ".join([DEFAULT_AGENT, *sorted(self.definitions.agents)])
            raise ToolError(f"no agent named {request.agent!r}; the agents are: {known}")
        if self._slots is None:
            self._slots = asyncio.Semaphore(MAX_PARALLEL)
        async with self._slots:
            model = definition.model if definition and definition.model else parent.llm.model
            try:
                session = await asyncio.to_thread(
                    Session.create,
                    self.workspace,
                    model=model,
                    parent=self.session.id,
                    kind=SUBAGENT,
                )
            except (SessionError, SessionBusy, OSError) as error:
                raise ToolError(f"cannot start the sub-agent: {error}") from None
            background = BackgroundCommands()  # its own: they stop when it ends
            agent: Agent | None = None
            worktree: Worktree | None = None  # its own, with `isolation: worktree`
            try:
                isolated = await open_worktree(definition, self.workspace)
                worktree, place = isolated or (None, self.workspace)
                agent = self._build(parent, session, definition, request, background, place)
                output = await self._drive(parent, agent, session, request)
            finally:
                if agent is not None:  # a fold still being made is of no use now
                    for used in agent.folds.end("the sub-agent ended"):  # billed all the same
                        parent.record_usage(UsageReported(used.usage, used.model, "subagent"))
                await background.close("the sub-agent ended")
                session.close()
                settled = await settle_worktree(worktree)  # removed when unchanged
            return reported(output, worktree, settled)

    def _build(
        self,
        parent: Agent,
        session: Session,
        definition: AgentDefinition | None,
        request: TaskRequest,
        background: BackgroundCommands,
        workspace: Path | None = None,
    ) -> Agent:
        """The sub-agent, working in `workspace` (its worktree's) or the parent's."""
        isolated = workspace is not None and workspace != self.workspace
        workspace = self.workspace if workspace is None else workspace
        session.journal.secrets = session.archive.secrets = session.outputs.secrets = self.known
        llm = parent.llm
        if definition is not None and definition.model is not None:
            llm = LLM(dataclasses.replace(self.config, model=definition.model).model_settings())
        registry = self._tools(parent.registry, session, definition, background)
        if definition is not None and definition.prompt:
            where = f"Workspace (every path is relative to it): {workspace}"
            prompt = f"{definition.prompt}\n\n{where}\n\n{SUBAGENT_NOTE}"
        else:
            prompt = f"{system_prompt(workspace, registry.names())}\n\n{SUBAGENT_NOTE}"
        # In a worktree of its own: its branch keeps its work, not the parent's checkpoints.
        checkpoints = None if isolated else parent.checkpoints
        sandbox = parent.context.sandbox  # its commands are confined as the parent's are
        sandbox = sandbox_in(sandbox, workspace) if isolated else sandbox
        hooks = parent.hooks.runner  # a PreToolUse guard holds for sub-agents' calls too
        agent = Agent(
            llm,
            registry,
            workspace,
            self._approver(parent, request.description),
            prompt,
            max_tool_iterations=self.config.max_tool_iterations,
            recorder=session,
            compactor=compactor_for(
                self.config.compaction, llm, session.archive, registry, self.secrets
            ),
            outputs=session.outputs,
            images=session.images,
            checkpoints=checkpoints.for_subagent(f"{session.id}/") if checkpoints else None,
            permissions=parent.permissions,
            sandbox=sandbox,
            hooks=hooks.for_subagent(session.id, request.agent, session.journal.path)
            if hooks is not None
            else None,
        )
        agent.cap = parent.cap.sharing(llm)
        # What a deny rule keeps from read_file, grep keeps from the sub-agent too; its file
        # tools go through the parent's editor when a front end lent one (tools/editor_files.py).
        agent.context = dataclasses.replace(
            agent.context,
            unreadable=parent.context.unreadable,
            editor=parent.context.editor,
            language_servers=parent.context.language_servers,  # the session's, shared
        )
        return agent

    def _tools(
        self,
        tools: ToolRegistry,
        session: Session,
        definition: AgentDefinition | None,
        background: BackgroundCommands,
    ) -> ToolRegistry:
        """The parent's tools a sub-agent gets (its definition's choice, when it makes one);
        read_archive reads the sub-agent's own archive, and the command tools its own
        `background` commands."""
        chosen = []
        for name in tools.names():
            tool = tools.get(name)
            if tool is None or name in NOT_FOR_SUBAGENTS:
                continue
            if definition is not None and definition.tools is not None:
                # By name, or an MCP tool by its server's (`mcp__<server>`), as rules name them.
                aliases = (name, *tool.rule_aliases)
                if not any(alias in definition.tools for alias in aliases):
                    continue
            if isinstance(tool, ArchiveReaderTool):
                tool = ArchiveReaderTool(session.archive)
            tool = with_background(tool, background)
            chosen.append(tool)
        return ToolRegistry(chosen)

    def _approver(self, parent: Agent, asker: str) -> Approver:
        """The parent's approver, asked one question at a time, naming the task that asks."""

        async def approve(request: ApprovalRequest) -> Decision:
            if self._asking is None:
                self._asking = asyncio.Lock()
            async with self._asking:
                return await parent.approve(dataclasses.replace(request, asker=asker))

        return approve

    async def _drive(
        self, parent: Agent, agent: Agent, session: Session, request: TaskRequest
    ) -> ToolOutput:
        """Run the sub-agent's one turn, passing on what the parent's front end should see;
        its answer (or why it stopped) is the result."""
        call = RUNNING_CALL.get()
        if call is not None:
            parent.side_events.emit(SubagentActivity(call, session.id))
        done: TurnDone | None = None
        error: ErrorEvent | None = None
        shown = {message.id for message in agent.history}  # its system prompt
        usage: Usage | None = None  # of the call whose reply is not passed on yet
        async with aclosing(agent.run_turn(request.prompt)) as events:
            async for event in events:
                if isinstance(event, UsageReported):
                    billed = UsageReported(event.usage, event.model, "subagent")
                    parent.record_usage(billed)
                    parent.side_events.emit(billed)
                    usage = event.usage if event.purpose == "turn" else usage
                elif isinstance(event, ToolCallStarted) and call is not None:
                    parent.side_events.emit(SubagentActivity(call, session.id, event.summary))
                elif isinstance(event, HookNotice):  # a hook blocked a call of its, or failed
                    parent.side_events.emit(subagent_notice(event, request.description))
                elif isinstance(event, ErrorEvent) and event.kind != "truncated":
                    error = event
                elif isinstance(event, TurnDone):
                    done = event
                for message in unseen(agent.history, shown):
                    if call is not None:
                        passed = SubagentMessage(call, session.id, agent.llm.model, message, usage)
                        parent.side_events.emit(passed)
                    usage = None if message.role == "assistant" else usage
        written, edited = changed_files(agent.history)
        facts = ResultFacts(files_written=written, files_edited=edited, subsession=session.id)
        meta = {"subsession": session.id}
        if done is not None and done.reason == "answer":
            return ToolOutput(done.text, meta=meta, facts=facts)
        reason = error.message if error is not None else "it gave no answer"
        return ToolOutput(
            f"the sub-agent stopped without an answer: {reason}", True, meta=meta, facts=facts
        )


def activity_line(event: SubagentActivity) -> str:
    """What a sub-agent does, on one line: its task's description, then the call."""
    about = event.call.parsed_arguments().get("description")
    about = " ".join(about.split())[:MAX_DESCRIPTION_CHARS] if isinstance(about, str) else ""
    return f"({about}) {event.summary}" if about else event.summary


def subagent_notice(notice: HookNotice, description: str) -> HookNotice:
    """A sub-agent's hook notice for the user, naming its task as its activity lines do."""
    about = " ".join(description.split())[:MAX_DESCRIPTION_CHARS]
    return dataclasses.replace(notice, message=f"({about}) {notice.message}")


def definition_notes(registry: ToolRegistry) -> tuple[str, ...]:
    """One line for each agent definition skipped or partly ignored (the front ends say them
    at start)."""
    tool = registry.get(TASK_TOOL)
    return tool.notes if isinstance(tool, TaskTool) else ()


def changed_files(history: list[Message]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The files a sub-agent's tool results say it wrote, and edited (for the parent's ledger:
    its changes are the parent's turn's)."""
    written: list[str] = []
    edited: list[str] = []
    for message in history:
        facts = ResultFacts.of_message(message.meta) if message.role == "tool" else None
        if facts is None or message.meta.get("is_error"):
            continue
        written += [path for path in facts.files_written if path not in written]
        edited += [path for path in facts.files_edited if path not in edited]
    return tuple(written[:MAX_FILES_NAMED]), tuple(edited[:MAX_FILES_NAMED])
