"""Plan mode: the note asking the model for a plan, and exit_plan_mode, which shows it to the user.

The system prompt never changes mid-session (it is the cached prefix), so plan mode speaks to
the model through a note injected after the user's prompt (a user-role message marked
`injected`: the TUI does not show it, the compaction ledger does not take it for a request).
The tool list never changes either: exit_plan_mode is always registered, and outside plan mode
it says there is nothing to exit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agent.permissions.modes import Mode
from agent.permissions.policy import Permissions
from sessions.messages import Message, is_summary
from tools.base import Tool, ToolContext, ToolError, ToolOutput

PLAN_TOOL = "exit_plan_mode"
# The summary message's meta key for the accepted plan (agent/compaction/rebuild.py).
PLAN_KEY = "plan"
# The meta key of a mode note: the mode it announced.
NOTE_KEY = "mode_note"
# Longest plan accepted, in characters: a plan is a page or two of markdown; past this the
# model is writing the change itself, not a plan of it.
MAX_PLAN_CHARS = 40_000
# Injected after the user's prompt while in plan mode.
PLAN_NOTE = (
    "[pleat: plan mode] The user has switched pleat to plan mode: only tools that read run "
    "(writes, edits and commands are refused). Investigate as much as you need, then call "
    "exit_plan_mode with a concise markdown plan of the changes you propose. Make no change "
    "until the user accepts the plan; if the request needs no change, just answer it."
)
# Injected after the next prompt once the user has left plan mode.
LEFT_PLAN_NOTE = (
    "[pleat: plan mode is off] The permission mode is now {mode}: you may carry out changes "
    "again (they run or ask the user as the mode says)."
)
# The result of an accepted plan.
ACCEPTED = (
    "The user accepted the plan. pleat left plan mode for accept-edits: file writes and edits "
    "now run without asking, commands ask. Carry out the plan now."
)
# The result of a plan the user did not accept yet.
KEEP_PLANNING = (
    "The user did not accept the plan yet and wants you to keep planning (pleat is still in "
    "plan mode). Revise the plan, then call exit_plan_mode again."
)
# The result of a plan headless, where nobody can accept it.
HEADLESS = (
    "pleat runs headless (pleat -p), so nobody can accept the plan here and the mode stays "
    "plan. End your turn with the plan in full as your answer: it is printed for the user, who "
    "can run pleat again with --permission-mode accept-edits to carry it out."
)


@dataclass(frozen=True)
class PlanVerdict:
    """The user's answer to a plan: accepted, keep planning (with optional feedback), or
    nobody to ask (headless)."""

    outcome: Literal["accepted", "keep_planning", "headless"]
    feedback: str = ""


PlanReviewer = Callable[[str], Awaitable[PlanVerdict]]


async def review_headless(plan: str) -> PlanVerdict:
    """Headless: the plan is the answer; the mode cannot switch."""
    return PlanVerdict("headless")


def mode_note(mode: Mode, history: Sequence[Message]) -> Message | None:
    """The note to inject after the user's prompt: the plan-mode instruction while in plan
    mode; once, after leaving it, that it is off; otherwise none."""
    if mode == "plan":
        return Message(role="user", content=PLAN_NOTE, meta={"injected": True, NOTE_KEY: mode})
    last = next((m.meta[NOTE_KEY] for m in reversed(history) if NOTE_KEY in m.meta), None)
    if last != "plan":
        return None
    text = LEFT_PLAN_NOTE.format(mode=mode)
    return Message(role="user", content=text, meta={"injected": True, NOTE_KEY: mode})


def accepted_plan(history: Sequence[Message]) -> str | None:
    """The plan the user accepted last, word for word: the plan of the newest exit_plan_mode
    call whose result is pleat's ACCEPTED (a hook's words may follow it), else the one the
    summary message at the head of the history carries (taken from the history by code, so no
    fold loses it), else None."""
    accepted: set[str] = set()
    for message in reversed(history):
        text = message.content or ""
        if message.role == "tool" and message.name == PLAN_TOOL and text.startswith(ACCEPTED):
            accepted.add(message.tool_call_id or "")
        for call in reversed(message.tool_calls):
            plan = call.parsed_arguments().get("plan") if call.id in accepted else None
            if call.name == PLAN_TOOL and isinstance(plan, str) and plan.strip():
                return plan
        if is_summary(message):
            kept = message.meta.get(PLAN_KEY)
            return kept if isinstance(kept, str) and len(kept) <= MAX_PLAN_CHARS else None
    return None


class ExitPlanModeTool(Tool):
    """Shows the model's plan to the user, who accepts it (plan mode ends) or not."""

    name = PLAN_TOOL
    # As short as it can be: the schema rides along in every request, in every mode, and a 4k
    # window has a few dozen tokens to spare (tests/e2e/test_window_matrix.py's run_command
    # case). The plan note says when and how to call it; run checks the plan's length.
    description = "Plan mode: present your plan."
    parameters: dict[str, Any] = {  # noqa: RUF012 - the class attribute every tool sets
        "type": "object",
        "properties": {"plan": {"type": "string"}},
        "required": ["plan"],
    }
    read_only = True  # it changes nothing on disk: it runs in every mode

    def __init__(self, permissions: Permissions, review: PlanReviewer) -> None:
        self.permissions = permissions
        self.review = review

    def describe_call(self, args: dict[str, Any]) -> str:
        lines = len(str(args.get("plan", "")).splitlines())
        return f"{self.name} (a plan of {lines} line{'' if lines == 1 else 's'})"

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        mode = self.permissions.mode
        if mode != "plan":
            return ToolOutput(
                f"pleat is not in plan mode (the mode is {mode}): there is nothing to exit; "
                "go on with the task."
            )
        plan = args["plan"]
        if len(plan) > MAX_PLAN_CHARS:
            raise ToolError(
                f"the plan has {len(plan):,} characters; a plan is at most {MAX_PLAN_CHARS:,}: "
                "say what you will change, not the change itself"
            )
        verdict = await self.review(plan)
        if verdict.outcome == "accepted":
            self.permissions.set_mode("accept-edits")
            return ToolOutput(ACCEPTED, meta={"plan": "accepted"})  # accepted_plan reads it
        if verdict.outcome == "headless":
            return ToolOutput(HEADLESS, meta={"plan": "headless"})
        feedback = verdict.feedback.strip()
        text = KEEP_PLANNING + (f"\nThe user's feedback: {feedback}" if feedback else "")
        return ToolOutput(text, meta={"plan": "keep_planning"})
