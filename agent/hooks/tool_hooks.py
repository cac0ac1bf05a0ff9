"""What PreToolUse and PostToolUse hooks are told of a call, and what their answers mean for it.

The payload is Claude Code's: `tool_name` and `tool_input` in Claude Code's names and fields
(`Bash` with `command`, `Read` with an absolute `file_path` ...: agent/claude_code/tools.py), so a
guard hook written for Claude Code guards pleat; pleat's own name and arguments ride beside in
`pleat_tool_name` and `pleat_tool_input`. After the call, `tool_response` is Claude Code's shape
for that tool, with pleat's `output` and `is_error` beside.

The answers of several hooks of one call combine as Claude Code combines them: a deny (exit 2,
`permissionDecision: "deny"`, `decision: "block"`) beats an ask, which beats an allow; the last
`updatedInput` given wins; every `additionalContext` is kept; one `continue: false` stops the
turn.

A hook with Claude Code's `if` (a permission rule: agent/hooks/config.py) runs when any part of
the call matches it, as a deny rule matches (`npm test && rm -rf x` runs an `if: Bash(rm *)`
guard); its allow and its updatedInput count only when the whole call matches, as an allow rule
must (`npm test && rm -rf x` is not approved by an `if: Bash(npm test*)` hook).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent.claude_code.tools import claude_input, claude_name, claude_response, pleat_arguments
from agent.hooks.answer import HookRun
from agent.hooks.config import HookSpec
from sessions.messages import ToolCall
from tools.base import Tool, ToolOutput

# What the model reads before words a hook added to a call's result, so it knows who speaks.
BLOCKED_HEADER = "[blocked by a PreToolUse hook] "
FEEDBACK_HEADER = "[a PostToolUse hook says] "
CONTEXT_HEADER = "[a {event} hook adds] "


def stopped_result(why: str) -> str:
    """The result of a call that does not run because a hook stopped the turn."""
    return f"[not run: a hook stopped the turn: {why}]"


Decision = Literal["allow", "ask"]


def pre_payload(call: ToolCall, args: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    """The fields a PreToolUse hook reads about the call."""
    return {
        "tool_name": claude_name(call.name),
        "tool_input": claude_input(call.name, args, workspace),
        "tool_use_id": call.id,
        "pleat_tool_name": call.name,
        "pleat_tool_input": dict(args),
    }


def post_payload(
    call: ToolCall, args: Mapping[str, Any], output: ToolOutput, workspace: Path
) -> dict[str, Any]:
    """The fields a PostToolUse hook reads: the call's, and its result."""
    response = claude_response(call.name, args, output, workspace)
    return {**pre_payload(call, args, workspace), "tool_response": response}


def conditioned(
    specs: Sequence[HookSpec], tool: Tool, args: Mapping[str, Any], workspace: Path
) -> tuple[list[HookSpec], set[HookSpec]]:
    """Of the hooks the matcher selected, those whose condition lets them run, and among them
    those whose condition the whole call does not meet (their allow does not count)."""
    if not any(spec.condition for spec in specs):
        return list(specs), set()
    from agent.permissions.rules import allowing_rules, denying_rule, parse_rule

    running: list[HookSpec] = []
    loose: set[HookSpec] = set()
    for spec in specs:
        if not spec.condition:
            running.append(spec)
            continue
        rule = parse_rule(spec.condition)
        if denying_rule([rule], tool, args, workspace) is None:
            continue  # no part of the call is what the hook is for
        running.append(spec)
        if not allowing_rules([rule], tool, args, workspace):
            loose.add(spec)
    return running, loose


@dataclass(frozen=True)
class PreToolOutcome:
    """What the PreToolUse hooks decided for one call."""

    # The reason the call does not run (a deny, or a stop), for its result; None: it may run.
    refusal: str | None = None
    # The hooks' permission decision: "allow" answers the question the call would ask; "ask"
    # asks even where the mode would run it (agent/permissions/policy.py); None leaves it to the
    # mode.
    decision: Decision | None = None
    # The reason of the hooks that decided "ask" (shown with the question).
    reason: str = ""
    # The arguments a hook's updatedInput gives the call (pleat's names; not checked yet).
    arguments: dict[str, Any] | None = None
    # What the hooks add for the model: joined to the call's result.
    context: str = ""
    # `continue: false`: the turn ends after this call (its stopReason, said to the user).
    stop: str | None = None
    # Names of the hooks that changed the input (said to the user).
    changed_by: tuple[str, ...] = ()


def pre_outcome(
    runs: Sequence[HookRun],
    call: ToolCall,
    args: Mapping[str, Any],
    workspace: Path,
    known: Collection[str],
    loose: Collection[HookSpec] = (),
) -> PreToolOutcome:
    """The PreToolUse answers of one call, combined (see the module); the allow and the input
    of a hook in `loose` do not count."""
    stopping = [run for run in runs if run.stops]
    stop = (stopping[0].stop_reason or "(no reason given)") if stopping else None
    context = "\n".join(run.added_context for run in runs if run.added_context)
    blocking = [run for run in runs if run.blocked]
    if stop is not None and not blocking:
        return PreToolOutcome(stopped_result(stop), stop=stop)
    if blocking:
        said = "\n".join(run.reason for run in blocking if run.reason)
        return PreToolOutcome(BLOCKED_HEADER + (said or "(the hook gave no reason)"), stop=stop)
    decisions = {run.decision for run in runs if run.decision != "allow" or run.spec not in loose}
    decision: Decision | None = "ask" if "ask" in decisions else None
    if decision is None and "allow" in decisions:
        decision = "allow"
    changing = [run for run in runs if run.updated_input is not None and run.spec not in loose]
    arguments = None
    if changing:
        updated = changing[-1].updated_input
        assert updated is not None
        arguments = pleat_arguments(call.name, updated, args, workspace, known)
    names = tuple(run.spec.name for run in changing)
    asking = "; ".join(run.reason for run in runs if run.decision == "ask" and run.reason)
    reason = asking if decision == "ask" else ""
    return PreToolOutcome(None, decision, reason, arguments, context, changed_by=names)


def with_context(output: ToolOutput, event: str, context: str) -> str:
    """The result's text with a hook's words for the model after it."""
    return f"{output.text}\n{CONTEXT_HEADER.format(event=event)}{context}"
