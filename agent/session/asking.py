"""How a session asks its user: one protocol (approvals, plan reviews, the model's questions,
project approvals) that each front end implements, and the approver the agent calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from agent.permissions.policy import ApprovalRequest, Decision, Permissions

if TYPE_CHECKING:
    from agent.permissions.plan_mode import PlanVerdict
    from agent.session.project_questions import ProjectQuestion
    from tools.ask_user import Question, Reply

# What the user can answer when asked to approve one call: once, "always" (the request's rules
# are allowed for the session), no, or "never" (this same request is refused for the session
# without asking again: ACP's reject_always).
Answer = Literal["yes", "no", "always", "never"]

# Why a call was refused, as the model reads it after "refused: the user did not approve X: ".
REFUSAL_REASON = "the user said no"
# Why a call refused "never" earlier this session was refused again without asking.
NEVER_REASON = "the user said no to this for the rest of the session; do not retry it"


class Asking(Protocol):
    """A front end's way of asking its user (the TUI: modals; `pleat -p`: nobody, so it answers
    by the flags; `pleat acp`: the editor's session/request_permission). Every question a session
    puts goes through one of these four."""

    async def approve(self, request: ApprovalRequest) -> Answer | Decision:
        """A tool call the mode and the rules leave to the user: the user's answer, or the
        front end's own decision when nobody can be asked (`pleat -p`: refused with the fix)."""
        ...

    async def review_plan(self, plan: str) -> PlanVerdict:
        """Plan mode's exit_plan_mode: accept the plan (and the mode to go on in) or not."""
        ...

    async def ask_user(self, question: Question) -> Reply | None:
        """The model's own question (ask_user); None: no answer given."""
        ...

    async def approve_project(self, question: ProjectQuestion) -> bool:
        """A project's hooks, settings, MCP servers or a plugin's parts, shown in full: run
        them (remembered for this content) or not (asked again next time)."""
        ...


class SessionApprovals:
    """The agent's approver: asks the front end (`asking`) about the calls the mode and the
    rules leave to ask; "always" adds the request's rules to the session's, "never" refuses the
    same request for the rest of the session. Holds the permissions the agent reads (a front end
    changes their mode: Shift+Tab, ACP's session/set_mode)."""

    def __init__(self, asking: Asking, permissions: Permissions) -> None:
        self.asking = asking
        self.permissions = permissions
        # The requests answered "never" this session: their tool and their "always" rules (the
        # call's shape), or the exact arguments when the request offers no rule.
        self._never: set[tuple[str, str]] = set()

    async def review_plan(self, plan: str) -> PlanVerdict:
        return await self.asking.review_plan(plan)

    async def ask_user(self, question: Question) -> Reply | None:
        return await self.asking.ask_user(question)

    def forget_session(self) -> None:
        """Another session opened: what was said "always" and "never" was said for the one
        before."""
        self.permissions.forget_session()
        self._never.clear()

    async def __call__(self, request: ApprovalRequest) -> Decision:
        key = _never_key(request)
        if key in self._never:
            return Decision(False, NEVER_REASON)
        answer = await self.asking.approve(request)
        if isinstance(answer, Decision):  # decided by the front end: nobody was asked
            return answer
        if answer == "always" and request.always:
            self.permissions.remember(request.always)
        if answer == "never":
            self._never.add(key)
        if answer == "yes" or (answer == "always" and request.always):
            return Decision(True)
        return Decision(False, REFUSAL_REASON)


def _never_key(request: ApprovalRequest) -> tuple[str, str]:
    """What a "never" refuses again: the request's rules when it has some (the call's shape, as
    "always" would allow it), else its exact arguments."""
    shape = "\n".join(request.always) if request.always else repr(sorted(request.arguments.items()))
    return request.tool, shape
