"""What each hook event means to the agent: when it runs, what it is told, what a block, a
context or a stop does (the table of events and answers: docs/EXTENDING.md#hooks; a hook's
outcome: agent/hooks/answer.py; a tool call's answers combined: agent/hooks/tool_hooks.py).

A sub-agent's hooks (its runner made by HookRunner.for_subagent) run PreToolUse, PostToolUse,
PreCompact, PostCompact and SubagentStop, never SessionStart, UserPromptSubmit (its prompt is
the model's, not the user's), Stop or SessionEnd, as in Claude Code; each payload names it.
Context for the model is an injected user message after the prompt, never a change of the
system prompt (the provider's cache holds). Every text a hook gives the model is cut to the
tool-output budget; lines for the user to agent.hooks.answer.HOOK_NOTICE_CHARS.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from agent.events import (
    CompactionDone,
    Event,
    FoldReason,
    HookNotice,
    PromptBlocked,
    TurnDone,
)
from agent.hooks.answer import HookRun, one_line
from agent.hooks.config import HookSpec
from agent.hooks.runner import HookRunner, tool_subjects
from agent.hooks.tool_hooks import (
    FEEDBACK_HEADER,
    PreToolOutcome,
    conditioned,
    post_payload,
    pre_outcome,
    pre_payload,
    with_context,
)
from agent.images.prompt import Attached
from agent.turn.ports import HookedAgent
from agent.turn.prompt_queue import joined
from sessions import messages as msg
from sessions.archive import ChunkArchive
from sessions.messages import Message, ToolCall, is_summary
from tools.base import Tool, ToolContext, ToolOutput
from tools.output_budget import clip_to_budget
from tools.output_guard import keep_within_budget

# Times one turn may go on because a Stop hook exited 2: a check that still fails after three
# more rounds of work needs the user, and each round costs model calls. Claude Code leaves the
# bound to the hook (`stop_hook_active`); pleat tells the hook too, and stops anyway.
MAX_STOP_CONTINUATIONS = 3
# Seconds a SessionEnd hook may run when it names no timeout, and at most: quitting waits for
# it, so it is short, as in Claude Code (1.5 s unless the hook asks for more, a minute at most).
SESSION_END_SECONDS = 1.5
MAX_SESSION_END_SECONDS = 60.0
# Fold reasons the user asked for (Claude Code's trigger "manual"); the others are "auto".
MANUAL_REASONS = frozenset({"manual", "fork", "model_switch"})
# What the model reads before a hook's words, so it knows who speaks.
CONTEXT_HEADER = "[pleat: context added by the user's hooks]"
STOP_HEADER = "[pleat: a Stop hook asks you to go on before ending the turn]"
SUBAGENT_STOP_HEADER = "[pleat: a SubagentStop hook asks you to go on before giving your answer]"


def _ending(spec: HookSpec) -> HookSpec:
    """A SessionEnd hook with the time it may take: quitting waits for it (see the constants)."""
    seconds = spec.timeout if spec.timeout_given else SESSION_END_SECONDS
    return dataclasses.replace(spec, timeout=min(seconds, MAX_SESSION_END_SECONDS))


def _said(runs: Sequence[HookRun], what: Literal["reason", "context"] = "reason") -> str:
    """Why the blocking hooks block, or what the others added for the model, joined."""
    if what == "reason":
        parts = [run.reason for run in runs if run.blocked]
    else:
        parts = [run.context for run in runs]
    return "\n".join(part for part in parts if part)


class AgentHooks:
    """The hook events of one agent. Without a runner (no hooks configured) every method is a
    no-op. Lines for the user gather in `notices`; the loop yields them at its next event."""

    def __init__(self, runner: HookRunner | None, agent: HookedAgent) -> None:
        self.runner = runner  # its set may grow: a project's hooks, approved after start
        self.agent = agent
        # A sub-agent's hooks: no prompt events, and SubagentStop for Stop (see the module).
        self.subagent = runner.subagent if runner is not None else {}
        self.notices: list[HookNotice] = []
        self._start: str | None = None  # the source of a SessionStart not run yet
        self._start_gate = asyncio.Lock()  # a turn waits for a SessionStart in progress
        self._context: list[str] = []  # stdout for the model, added after the next prompt
        self._stops = 0  # Stop continuations in this turn
        # A tool hook's `continue: false`: the turn ends once its round of calls is answered
        # (the loop takes it: take_stop); what the hook gave as its stopReason.
        self.stop_requested: str | None = None
        self._ran_start = False  # a SessionStart ran (or was armed) for this session
        self._source: str | None = None  # how this session opened (startup, resume ...)

    def has(self, event: str) -> bool:
        return self.runner is not None and self.runner.has(event)

    def take_notices(self) -> list[HookNotice]:
        taken, self.notices = self.notices, []
        return taken

    async def _run(
        self,
        event: str,
        fields: dict[str, Any],
        subjects: Sequence[str] = (),
        specs: Sequence[HookSpec] | None = None,
    ) -> list[HookRun]:
        """Run the event's hooks (those `subjects` select, or `specs`); each failure becomes a
        notice, each `systemMessage` a line for the user."""
        if self.runner is None:
            return []
        mode = self.agent.permissions.mode
        runs = await self.runner.run(event, mode, fields, subjects, specs)
        for run in runs:
            if run.failed:
                self.notices.append(HookNotice(event, run.failure(), failed=True))
            if run.system_message:
                self.notices.append(HookNotice(event, f"{run.spec.name}: {run.system_message}"))
        return runs

    def _stopping(self, event: str, runs: Sequence[HookRun]) -> str | None:
        """A `continue: false` among the runs: its stopReason (said to the user), or None."""
        for run in runs:
            if run.stops:
                why = run.stop_reason or "(no reason given)"
                self.notices.append(HookNotice(event, f"{run.spec.name} stopped: {why}"))
                return why
        return None

    def take_stop(self) -> str | None:
        """The stop a tool hook asked for this round (cleared), or None."""
        stop, self.stop_requested = self.stop_requested, None
        return stop

    def _tell_user(self, event: str, runs: Sequence[HookRun], what: str = "") -> None:
        """Exit 2 where nothing can be blocked: its stderr, as a line for the user (not for a
        hook that asked to keep its output from the user)."""
        for run in runs:
            if run.blocked and not run.suppressed:
                said = one_line(run.reason) or "(no message)"
                self.notices.append(HookNotice(event, f"{run.spec.name}{what}: {said}"))

    def _for_model(self, text: str) -> str:
        return clip_to_budget(text, self.agent.tool_context().budget)

    # -- SessionStart ----------------------------------------------------------------------

    def session_started(self, source: str) -> None:
        """A session opened ("startup", "resume", "clear" for /new, "fork"): its SessionStart
        hooks run once, from run_session_start or, if a prompt comes first, before it."""
        self._source = source
        self._start = source if self.has("SessionStart") else None
        self._ran_start = self._start is not None

    def hooks_added(self) -> None:
        """Hooks joined the run (a project's, approved after the session opened): a
        SessionStart among them runs before the next prompt, unless one ran already."""
        if not self._ran_start and self._source is not None:
            self.session_started(self._source)

    async def run_session_start(self) -> list[HookNotice]:
        """Run a pending SessionStart (once); the lines it has for the user."""
        if self._start is None and not self._start_gate.locked():
            return []  # none pending, none running (a prompt waits for one that runs)
        async with self._start_gate:
            source, self._start = self._start, None
            if source is None:
                return []
            earlier = self.take_notices()
            runs = await self._run("SessionStart", {"source": source}, (source,))
            self._tell_user("SessionStart", runs)
            if added := _said(runs, "context"):
                self._context.append(added)
            mine, self.notices = self.notices, earlier
            return mine

    # -- UserPromptSubmit ------------------------------------------------------------------

    async def prompt_submitted(self, prompt: str) -> list[Event]:
        """A turn starts: a pending SessionStart first, then UserPromptSubmit. The events to
        show first: what the hooks said and, for a blocked prompt, PromptBlocked and the
        turn's end."""
        self._stops = 0
        self.stop_requested = None  # a stop an interrupted turn left is not this turn's
        if self.subagent:  # the task's prompt: the parent's model wrote it
            return list(self.take_notices())
        self.notices += await self.run_session_start()
        blocked = await self._check_prompt(prompt)
        events: list[Event] = list(self.take_notices())
        if blocked is not None:
            events += [PromptBlocked(prompt, blocked), TurnDone("error")]
        return events

    async def _check_prompt(self, prompt: str) -> str | None:
        runs = await self._run("UserPromptSubmit", {"prompt": prompt})
        stopping = [run for run in runs if run.stops]
        if stopping:
            said = one_line(stopping[0].stop_reason) or "(no reason given)"
            return f"prompt not sent: {stopping[0].spec.name} stopped it: {said}"
        blocking = [run for run in runs if run.blocked]
        if blocking:
            said = one_line(_said(blocking)) or "(no message)"
            return f"prompt not sent: {blocking[0].spec.name} blocked it: {said}"
        if added := _said(runs, "context"):
            self._context.append(added)
        return None

    def add_context(self) -> None:
        """Hook output for the model, as an injected message after the prompt (if any)."""
        if not self._context:
            return
        text, self._context = "\n\n".join(self._context), []
        body = self._for_model(f"{CONTEXT_HEADER}\n{text}")
        self.agent.add(msg.user(body, injected=True, hook="context"))

    async def deliver_queued(self, attach: Callable[[str], Awaitable[Attached]]) -> list[Event]:
        """The prompts queued while the turn ran (with the images they name: `attach`), checked
        by UserPromptSubmit (as one, the way they are sent), then delivered, or given back
        blocked. A queue changed while the hook ran is left for the next step (checked again
        then)."""
        queue, add = self.agent.queued, self.agent.add
        if self.subagent or not self.has("UserPromptSubmit") or not queue.deliverable:
            return list(await queue.deliver(add, attach))
        waiting = queue.deliverable  # a command line (`!`) and what follows wait for the end
        text = joined(waiting)
        blocked = await self._check_prompt(text)
        if blocked is not None:
            return (
                [PromptBlocked(text, blocked, queued=True)] if queue.take_if_first(waiting) else []
            )
        delivered: list[Event] = list(await queue.deliver(add, attach, checked=waiting))
        if delivered:
            self.add_context()
        self._context = []  # for prompts the queue no longer holds as checked: checked again
        return delivered

    # -- PreToolUse, PostToolUse -----------------------------------------------------------

    async def pre_tool_use(
        self, call: ToolCall, tool: Tool, args: dict[str, Any], ctx: ToolContext
    ) -> PreToolOutcome:
        """What the PreToolUse hooks decided for the call (agent/hooks/tool_hooks.py); a refusal is
        already cut to the budget the call's result has."""
        specs, loose = await self._tool_specs("PreToolUse", call, tool, args, ctx)
        if not specs:
            return PreToolOutcome()
        fields = await asyncio.to_thread(pre_payload, call, args, ctx.workspace)
        runs = await self._run("PreToolUse", fields, specs=specs)
        known = tool.parameters.get("properties", {})
        outcome = pre_outcome(runs, call, args, ctx.workspace, known, loose)
        if outcome.stop is not None:
            self._stopping("PreToolUse", runs)
            self.stop_requested = outcome.stop
        blocking = [run for run in runs if run.blocked]
        if blocking and outcome.refusal is not None:
            said = one_line(_said(blocking)) or "(the hook gave no reason)"
            if not all(run.suppressed for run in blocking):
                line = f"{blocking[0].spec.name} blocked {call.name}: {said}"
                self.notices.append(HookNotice("PreToolUse", line))
        for name in outcome.changed_by:
            self.notices.append(
                HookNotice("PreToolUse", f"{name} changed the input of {call.name}")
            )
        if outcome.refusal is None:
            return outcome
        output = ToolOutput(outcome.refusal, is_error=True, meta={"hook": "PreToolUse"})
        kept = await asyncio.to_thread(keep_within_budget, output, ctx)
        return dataclasses.replace(outcome, refusal=kept.text)

    async def _tool_specs(
        self, event: str, call: ToolCall, tool: Tool, args: dict[str, Any], ctx: ToolContext
    ) -> tuple[list[HookSpec], set[HookSpec]]:
        """The hooks of a tool event that run for this call, and those whose allow does not
        count (agent/hooks/tool_hooks.py: conditions)."""
        if self.runner is None:
            return [], set()
        specs = self.runner.matching(event, tool_subjects(call.name))
        if not specs:
            return [], set()
        return await asyncio.to_thread(conditioned, specs, tool, args, ctx.workspace)

    async def post_tool_use(
        self,
        call: ToolCall,
        tool: Tool,
        args: dict[str, Any],
        output: ToolOutput,
        ctx: ToolContext,
        context: str = "",
    ) -> ToolOutput:
        """The result, with what the hooks said for the model added: a PostToolUse hook's
        block (exit 2, or `decision: "block"`) and `additionalContext`, and `context` (what the
        PreToolUse hooks added)."""
        parts = [with_context(output, "PreToolUse", context)] if context else [output.text]
        specs, _ = await self._tool_specs("PostToolUse", call, tool, args, ctx)
        if specs:
            fields = await asyncio.to_thread(post_payload, call, args, output, ctx.workspace)
            runs = await self._run("PostToolUse", fields, specs=specs)
            if (stop := self._stopping("PostToolUse", runs)) is not None:
                self.stop_requested = stop
            if said := _said(runs):
                self._tell_user("PostToolUse", runs, f" on {call.name} (told the model)")
                parts.append(f"{FEEDBACK_HEADER}{said}")
            added = "\n".join(run.added_context for run in runs if run.added_context)
            if added:
                parts.append(f"[a PostToolUse hook adds] {added}")
        if len(parts) == 1 and not context:
            return output
        text = "\n".join(parts)
        return await asyncio.to_thread(
            keep_within_budget, dataclasses.replace(output, text=text), ctx
        )

    # -- PreCompact, PostCompact -----------------------------------------------------------

    async def pre_compact(self, reason: FoldReason, focus: str | None) -> str | None:
        """The fold's focus, with what the hooks printed added to it."""
        trigger = "manual" if reason in MANUAL_REASONS else "auto"
        fields = {"trigger": trigger, "reason": reason, "custom_instructions": focus or ""}
        runs = await self._run("PreCompact", fields, (trigger, reason))
        self._tell_user("PreCompact", runs)
        added = _said(runs, "context")
        if not added:
            return focus
        return "\n".join(part for part in (focus, self._for_model(added)) if part)

    async def post_compact(self, done: CompactionDone, archive: ChunkArchive) -> list[HookNotice]:
        """Tell the hooks what the fold wrote (the chunk's path, the summary); what they said."""
        if not self.has("PostCompact"):
            return []
        trigger = "manual" if done.reason in MANUAL_REASONS else "auto"
        summary = next((m.meta.get("summary", "") for m in done.history if is_summary(m)), "")
        fields = {
            "trigger": trigger,
            "reason": done.reason,
            "chunk": done.chunk,
            "chunk_path": str(archive.path(done.chunk)),
            "merged": done.merged,
            "summary": summary,
            "compact_summary": summary,  # Claude Code's name for it
            "folded_messages": done.folded_messages,
            "tokens_before": done.tokens_before,
            "tokens_after": done.tokens_after,
        }
        runs = await self._run("PostCompact", fields, (trigger, done.reason))
        self._tell_user("PostCompact", runs)
        return self.take_notices()

    # -- Stop ------------------------------------------------------------------------------

    async def stop(self, answer: str) -> Message | None:
        """The turn ended with `answer`: the message that makes it go on (a Stop hook exited
        2; a SubagentStop hook, for a sub-agent), or None when it ends."""
        event = "SubagentStop" if self.subagent else "Stop"
        if not self.has(event):
            return None
        fields = {"stop_hook_active": self._stops > 0, "last_assistant_message": answer}
        subjects = (self.subagent["agent_type"],) if self.subagent else ()
        runs = await self._run(event, fields, subjects)
        blocking = [run for run in runs if run.blocked]
        if self._stopping(event, runs) is not None or not blocking:
            return None  # `continue: false` ends the turn, whatever another hook asks
        said = _said(blocking) or "(the hook gave no reason)"
        name = blocking[0].spec.name
        if self._stops >= MAX_STOP_CONTINUATIONS:
            line = f"{name} asked to go on again ({self._stops} times this turn); it ends here"
            self.notices.append(HookNotice(event, f"{line}: {one_line(said)}"))
            return None
        self._stops += 1
        self.notices.append(HookNotice(event, f"{name}: the turn goes on: {one_line(said)}"))
        header = SUBAGENT_STOP_HEADER if self.subagent else STOP_HEADER
        body = self._for_model(f"{header}\n{said}")
        return msg.user(body, injected=True, hook=event)

    # -- SessionEnd ------------------------------------------------------------------------

    async def session_end(self, reason: str) -> list[HookNotice]:
        """The session closes (`reason`: Claude Code's "clear" for /new, "resume", "other",
        "prompt_input_exit" when the user quits): its SessionEnd hooks, and what they said."""
        if self.subagent or self.runner is None:
            return []
        specs = [_ending(spec) for spec in self.runner.matching("SessionEnd", (reason,))]
        if not specs:
            return []
        earlier = self.take_notices()
        runs = await self._run("SessionEnd", {"reason": reason}, specs=specs)
        self._tell_user("SessionEnd", runs)
        mine, self.notices = self.notices, earlier
        return mine
