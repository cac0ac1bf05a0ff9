"""The `task` tool: hands a self-contained subtask to a sub-agent; only its answer comes back.

The tool is the schema and the checks; who runs the sub-agent is injected (agent/subagents/team.py
builds a second agent, which tools may not import). Its calls in one reply run side by side.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from sessions.messages import ToolCall
from tools.base import Tool, ToolContext, ToolError, ToolOutput

TASK_TOOL = "task"
# The agent a task gets when it names none (Claude Code's name for it).
DEFAULT_AGENT = "general-purpose"
# Longest prompt accepted, in characters (about 10k tokens): a subtask's brief is a page or two;
# the sub-agent's whole first request must fit its window beside the tools and system prompt.
MAX_PROMPT_CHARS = 40_000
# Longest description shown on the task's block and in approvals: "a few words".
MAX_DESCRIPTION_CHARS = 80
# As short as it can be: the schema rides in every request (a 4k window has little to spare).
DESCRIPTION = (
    "Run a self-contained subtask in a sub-agent: a fresh context, your tools but this one. "
    "Only its final answer returns: give prompt all it needs. Calls in one reply run in parallel."
)

# The call a task is answering, set by the agent for each concurrent call it runs (each in its
# own asyncio task, so each sees its own): the runner names its sub-agent's work after it.
RUNNING_CALL: ContextVar[ToolCall | None] = ContextVar("pleat_running_call", default=None)


@dataclass(frozen=True)
class TaskRequest:
    """One task as the model gave it: a few words, the brief, and the agent (a definition's
    name, or DEFAULT_AGENT)."""

    description: str
    prompt: str
    agent: str = DEFAULT_AGENT


# Runs a task to its end and gives the answer as the call's output (agent/subagents/team.py).
TaskRunner = Callable[[TaskRequest, ToolContext], Awaitable[ToolOutput]]


def _parameters(agents: Sequence[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "a few words"},
            "prompt": {"type": "string"},
            "subagent_type": {"type": "string", "enum": [DEFAULT_AGENT, *agents]},
        },
        "required": ["description", "prompt"],
    }


class TaskTool(Tool):
    """Runs a sub-agent through the injected runner. Read-only itself: it asks nobody, and the
    sub-agent's own calls go through the permissions like the caller's."""

    name = TASK_TOOL
    read_only = True
    concurrent = True

    def __init__(
        self,
        runner: TaskRunner,
        agents: Sequence[tuple[str, str]] = (),
        notes: Sequence[str] = (),
    ) -> None:
        """`agents`: (name, description) of each agent definition offered, in a stable
        order (they are part of every request's cached prefix); `notes`: one line for each
        definition skipped or partly ignored, for the front end to show."""
        self.runner = runner
        self.notes = tuple(notes)
        self.description = DESCRIPTION
        if agents:
            lines = "\n".join(f"- {name}: {about}" for name, about in agents)
            self.description += f"\nsubagent_type (default {DEFAULT_AGENT}):\n{lines}"
        self.parameters = _parameters([name for name, _ in agents])

    def describe_call(self, args: dict[str, Any]) -> str:
        about = " ".join(str(args.get("description", "")).split())[:MAX_DESCRIPTION_CHARS]
        agent = args.get("subagent_type") or DEFAULT_AGENT
        shown = "" if agent == DEFAULT_AGENT else f"{agent}: "
        return f"{self.name}({shown}{about})"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        prompt = args["prompt"]
        if not prompt.strip():
            raise ToolError("the prompt is empty: give the sub-agent its whole task")
        if len(prompt) > MAX_PROMPT_CHARS:
            raise ToolError(
                f"the prompt has {len(prompt):,} characters; at most {MAX_PROMPT_CHARS:,}: "
                "point the sub-agent at files instead of pasting them"
            )
        about = " ".join(str(args["description"]).split())[:MAX_DESCRIPTION_CHARS]
        request = TaskRequest(about or "task", prompt, args.get("subagent_type") or DEFAULT_AGENT)
        return await self.runner(request, ctx)
