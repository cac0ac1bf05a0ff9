"""One tool call of the agent: check its arguments, PreToolUse (which may block the call, change
its input, or decide its permission: agent/hooks/tool_hooks.py), the permissions, then the run and
PostToolUse inside the checkpoint's bracket. Every failure becomes the call's result.

PostToolUse runs inside the bracket (agent/turn/checkpoints.py): what a hook changes after the tool
(a formatter rewriting the file just written) is part of the call, so the checkpoint's "after"
is what the hooks left and /undo does not take it for an edit of the user's. The tool gets a
way to ask whether a variant of its call (web_fetch following a redirect) would be let run as
freely as this one (ToolContext.same_permission), since a tool cannot read the rules itself.
"""

from __future__ import annotations

import dataclasses

from agent.hooks.tool_hooks import stopped_result
from agent.turn.ports import CallHost
from sessions.messages import ToolCall
from tools.arguments import validate_arguments
from tools.base import ToolError, ToolOutput
from tools.result_facts import ResultFacts

# Characters of an unexpected error's text quoted in the result: its gist, on one line.
ERROR_CHARS = 200


async def run_tool(agent: CallHost, call: ToolCall, calls: int = 1) -> ToolOutput:
    """Run `call`, one of the `calls` of a reply, for `agent` (see the module)."""
    tool = agent.registry.get(call.name)
    context = agent.tool_context(calls)
    if tool is None:  # the registry's "unknown tool" result
        return await agent.registry.dispatch(call.name, call.arguments, context)
    try:
        args = validate_arguments(tool, call.arguments)
    except ToolError as error:
        return ToolOutput(str(error), is_error=True)
    except Exception as error:  # a crafted schema (an MCP server's) can break the check itself
        said = " ".join(f"{type(error).__name__}: {error}".split())[:ERROR_CHARS]
        text = f"the arguments for {call.name} could not be checked against its schema ({said})"
        return ToolOutput(text, is_error=True)
    if agent.hooks.stop_requested is not None:  # a hook stopped the turn: no call after it
        return ToolOutput(stopped_result(agent.hooks.stop_requested), is_error=True)
    hooked = await agent.hooks.pre_tool_use(call, tool, args, context)
    if hooked.refusal is not None:
        blocked = ResultFacts(refused="hook") if hooked.stop is None else ResultFacts()
        return ToolOutput(hooked.refusal, is_error=True, meta={"hook": "PreToolUse"}, facts=blocked)
    if hooked.arguments is not None:  # a hook's updatedInput: checked as the model's would be
        try:
            args = validate_arguments(tool, hooked.arguments)
        except ToolError as error:
            text = f"a PreToolUse hook changed the input of {call.name} to one not valid: {error}"
            return ToolOutput(text, is_error=True)
    refusal = await agent.permissions.check(
        tool, args, context, agent.approve, hook=hooked.decision, hook_reason=hooked.reason
    )
    if refusal is not None:
        return ToolOutput(refusal, is_error=True, facts=ResultFacts(refused="permissions"))
    judge = agent.permissions.as_free_as(tool, args, context.workspace)
    context = dataclasses.replace(context, same_permission=judge)

    async def run_and_hooks() -> ToolOutput:
        output = await agent.registry.dispatch(call.name, args, context)
        return await agent.hooks.post_tool_use(call, tool, args, output, context, hooked.context)

    checkpoints = None if tool.read_only else agent.checkpoints  # what it changes, for /undo
    if checkpoints is None:
        return await run_and_hooks()
    return await checkpoints.around(call, tool, args, run_and_hooks)
