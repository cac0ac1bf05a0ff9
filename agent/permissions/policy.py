"""Who decides whether a tool call runs: the permission mode and rules, then the approval callback.

The loop asks `Permissions.check` before every call. In order: a deny rule refuses (naming the
rule); an ask rule asks, whatever the mode and the allow rules (Claude Code's `ask`); a read-only
tool runs; in a turn that only reads (/review) and in plan mode everything
else is refused (the model is told why) but a tool that changes nothing here (web_fetch), which
goes on; an allow rule (from the
configuration, or said "always" this session) runs it; full-auto runs it; accept-edits runs
file writes and edits; anything left is asked through the injected approval callback (the
TUI's modal; headless, a refusal that says how to allow it).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent.permissions.modes import MODES, Mode

if TYPE_CHECKING:
    # The rules (and the shell parsing under them) load at the first rule or decision, not at
    # the TUI's first frame, which only makes the mode.
    from agent.permissions.rules import Rule
    from tools.base import Tool, ToolContext
    from tools.registry import ToolRegistry

# What the model reads when plan mode refuses a call.
PLAN_REFUSAL = (
    "pleat is in plan mode: only tools that read run, so {tool} was not run. Investigate with "
    "the reading tools, then call exit_plan_mode with your plan; change nothing until the user "
    "accepts it"
)

# The meta key of a request whose turn only reads (/review: agent/commands/builtin_prompts.py):
# the loop runs it under Permissions.reading_only, and the key stays with the message.
READ_ONLY_KEY = "read_only"
# What the model reads when a call is refused during such a turn.
READ_ONLY_REFUSAL = (
    "this request only reads (the user asked for a review), so {tool} was not run; change "
    "nothing: report your findings, with the fix for each, instead"
)

# The example rule a headless refusal gives when "always" has none to offer (a command that
# is not plain): the shape of a command rule, the calls that most often ask.
EXAMPLE_RULE = "run_command(pytest *)"

# How an "always" to run one exact command outside the sandbox is written (Permissions.remember).
OUTSIDE_SANDBOX = "outside the sandbox: "
# How strict each verdict is: a variant of a call may run in its place only when it would be
# decided no more strictly (Permissions.as_free_as).
STRICTNESS = {"run": 0, "ask": 1, "refuse": 2}


@dataclass(frozen=True)
class ApprovalRequest:
    """What the user is asked to approve: the call and its preview (a diff, or the command),
    the rules an "always" answer adds for the session (none: "always" is not offered), and
    who asks."""

    tool: str
    arguments: dict[str, Any]
    preview: str
    always: tuple[str, ...] = ()
    # Who asks, when it is not the agent the user talks to: a sub-agent (its task's
    # description: agent/subagents/team.py); "" for the agent itself.
    asker: str = ""
    # The mode that made the call ask, and whether the tool only edits files (accept-edits
    # would run it): what a refusal says would let it run.
    mode: Mode = "ask"
    edits_files: bool = False
    # Set when a PreToolUse hook asked for this question (its permissionDecision "ask") where
    # the mode would have run the call: the hook's reason ("" when it gave none).
    hook_asked: bool = False
    hook_reason: str = ""
    # The call asks to run outside the sandbox (run_command's no_sandbox): always asked, and
    # "always" allows that exact command outside it for the session.
    outside_sandbox: bool = False
    # The ask rule that made the call ask ("": none did).
    ask_rule: str = ""


@dataclass(frozen=True)
class Decision:
    approved: bool
    reason: str = ""


Approver = Callable[[ApprovalRequest], Awaitable[Decision]]


@dataclass(frozen=True)
class Verdict:
    """What the mode and the rules say of one call: run it, ask, or refuse with a reason."""

    action: Literal["run", "ask", "refuse"]
    reason: str = ""
    always: tuple[Rule, ...] = ()  # for "ask": what "always" would add
    outside: str | None = None  # for "ask": the command asking to run outside the sandbox
    ask_rule: str = ""  # for "ask": the ask rule that asks, whatever the mode


class Permissions:
    """The permission state of a front end: the mode (it may change while a turn runs: it is
    read at each call), the configured rules, and the rules said "always" this session."""

    def __init__(
        self,
        mode: Mode = "ask",
        allow: Iterable[Rule] = (),
        deny: Iterable[Rule] = (),
        ask: Iterable[Rule] = (),
    ) -> None:
        self.mode: Mode = mode
        self.allow = tuple(allow)
        self.deny = tuple(deny)
        self.ask = tuple(ask)
        self.session_allow: list[Rule] = []
        # What the skills loaded this turn let run without asking (their allowed-tools:
        # agent/skills/tool.py); emptied as the next user turn starts.
        self.skill_allow: list[Rule] = []
        self._listeners: list[Callable[[Mode], None]] = []
        # Whether commands run confined (tools/sandbox/: set when the sandbox is active), and
        # the exact commands the user said "always" to run outside it this session.
        self.sandboxed = False
        self.outside_allowed: set[str] = set()
        # A turn that only reads (/review): calls that would write or run are refused, whatever
        # the mode, which stays as it was (Permissions.reading_only).
        self.read_only_turn = False

    @classmethod
    def from_settings(
        cls, mode: str, allow: Sequence[str], deny: Sequence[str], ask: Sequence[str] = ()
    ) -> Permissions:
        """From the configuration's strings (already checked by agent/config.py). The rules'
        parser is imported only when there are rules (the TUI builds these before its first
        frame)."""
        if mode not in MODES:
            raise ValueError(f"unknown permission mode {mode!r}")
        chosen: Mode = next(m for m in MODES if m == mode)
        if not (allow or deny or ask):
            return cls(chosen, (), (), ())
        from agent.permissions.rules import parse_rule

        return cls(chosen, map(parse_rule, allow), map(parse_rule, deny), map(parse_rule, ask))

    @contextmanager
    def reading_only(self, on: bool = True) -> Iterator[None]:
        """While inside (when `on`): only reading tools run; then it is as before."""
        before = self.read_only_turn
        self.read_only_turn = before or on
        try:
            yield
        finally:
            self.read_only_turn = before

    def on_change(self, listener: Callable[[Mode], None]) -> None:
        """Call `listener` with the new mode whenever it changes (the TUI's status bar)."""
        self._listeners.append(listener)

    def set_mode(self, mode: Mode) -> None:
        if mode == self.mode:
            return
        self.mode = mode
        for listener in self._listeners:
            listener(mode)

    def cycle(self) -> Mode:
        """The next mode in MODES order (Shift+Tab); returns it."""
        self.set_mode(MODES[(MODES.index(self.mode) + 1) % len(MODES)])
        return self.mode

    def remember(self, rules: Iterable[str]) -> None:
        """Allow these rules until the session ends ("always")."""
        from agent.permissions.rules import parse_rule

        for text in rules:
            if text.startswith(OUTSIDE_SANDBOX):  # one exact command, outside the sandbox
                self.outside_allowed.add(text.removeprefix(OUTSIDE_SANDBOX))
                continue
            rule = parse_rule(text)
            if rule not in self.session_allow:
                self.session_allow.append(rule)

    def forget_session(self) -> None:
        """Another session opened: what was said "always" was said for the one before."""
        self.session_allow.clear()
        self.skill_allow.clear()
        self.outside_allowed.clear()

    def names_command(self, tool: Tool, command: str, workspace: Path) -> bool:
        """Whether allow rules that name a command (a pattern: a bare `run_command` names none)
        let this one run: in the sandbox, such a command may reach the network."""
        from agent.permissions.rules import allowing_rules

        rules = [rule for rule in [*self.allow, *self.session_allow] if rule.pattern is not None]
        return bool(allowing_rules(rules, tool, {tool.main_argument or "": command}, workspace))

    def denies_reading(self, reader: Tool, workspace: Path, path: str) -> bool:
        """Whether a deny rule refuses `reader` (read_file) this workspace-relative path: grep
        does not search what read_file may not read (as Claude Code applies Read rules)."""
        from agent.permissions.rules import denying_rule

        return (
            denying_rule(self.deny, reader, {reader.main_argument or "": path}, workspace)
            is not None
        )

    def decide(self, tool: Tool, args: Mapping[str, Any], workspace: Path) -> Verdict:
        """The decision table (see the module)."""
        from agent.permissions.rules import allowing_rules, always_rules, denying_rule

        if (rule := denying_rule(self.deny, tool, args, workspace)) is not None:
            return Verdict(
                "refuse",
                f'{tool.name} is denied by the rule "{rule}" (a deny rule of your settings); '
                "do not try to get around it: tell the user what you wanted to do",
            )
        changes = not tool.read_only and not tool.asks_in_plan_mode
        if self.read_only_turn and (changes or tool.keeps_notes(args)):
            return Verdict("refuse", READ_ONLY_REFUSAL.format(tool=tool.name))
        if self.mode == "plan" and changes:
            return Verdict("refuse", PLAN_REFUSAL.format(tool=tool.name))
        if (rule := denying_rule(self.ask, tool, args, workspace)) is not None:
            return Verdict("ask", ask_rule=str(rule))  # asks each time: no "always"
        if tool.read_only:
            return Verdict("run")
        if tool.sandboxable and self.sandboxed:  # confined: runs; outside it: always asks
            if args.get("no_sandbox") is not True:
                return Verdict("run")
            command = str(args.get(tool.main_argument or "", ""))
            if command in self.outside_allowed:
                return Verdict("run")
            return Verdict("ask", outside=command)
        allowed = [*self.allow, *self.session_allow, *self.skill_allow]
        if allowing_rules(allowed, tool, args, workspace):
            return Verdict("run")
        # A read-only turn (/review) asks even in full-auto before what may send the
        # workspace's text out (web_fetch's address; found by review).
        if not self.read_only_turn and (
            self.mode == "full-auto" or (self.mode == "accept-edits" and tool.edits_files)
        ):
            return Verdict("run")
        return Verdict("ask", always=always_rules(tool, args, workspace))

    def as_free_as(
        self, tool: Tool, args: Mapping[str, Any], workspace: Path
    ) -> Callable[[Mapping[str, Any]], bool]:
        """For a call that may run: whether a call of `tool` with other arguments would be
        decided no more strictly (run < ask < refuse) than this one, by the mode and rules as
        they are when asked. A redirect web_fetch follows must pass it (tools/web_download.py):
        a deny rule, or an allow rule that does not cover the new address, is heard again."""
        granted = STRICTNESS[self.decide(tool, args, workspace).action]

        def judge(other: Mapping[str, Any]) -> bool:
            return STRICTNESS[self.decide(tool, other, workspace).action] <= granted

        return judge

    async def check(
        self,
        tool: Tool,
        args: dict[str, Any],
        context: ToolContext,
        approve: Approver,
        *,
        hook: Literal["allow", "ask"] | None = None,
        hook_reason: str = "",
    ) -> str | None:
        """None when the call may run; otherwise the refusal the model reads as its result.
        A PreToolUse hook's decision (agent/hooks/tool_hooks.py) weighs in as in Claude Code:
        "allow" answers the question the call would ask, "ask" asks where the call would run; a deny
        rule and plan mode refuse either way."""
        verdict = self.decide(tool, args, context.workspace)
        if verdict.action == "refuse":
            return f"refused: {verdict.reason}"
        if verdict.action == "run" and hook != "ask":
            return None
        if hook == "allow" and verdict.outside is None and not verdict.ask_rule:
            return None  # leaving the sandbox, or an ask rule: the user's word
            return None
        preview = await tool.preview(args, context)
        always = tuple(map(str, verdict.always))
        if verdict.outside is not None:
            always = (f"{OUTSIDE_SANDBOX}{verdict.outside}",)
        request = ApprovalRequest(
            tool.name,
            args,
            preview,
            always,
            mode=self.mode,
            edits_files=tool.edits_files,
            hook_asked=hook == "ask",
            hook_reason=hook_reason,
            outside_sandbox=verdict.outside is not None,
            ask_rule=verdict.ask_rule,
        )
        decision = await approve(request)
        if decision.approved:
            return None
        why = f": {decision.reason}" if decision.reason else ""
        return f"refused: the user did not approve {tool.name}{why}"

    def rule_problems(self, registry: ToolRegistry) -> list[str]:
        """One line for each configured rule that can never match: it names no tool pleat
        has (MCP tools, `mcp__...`, are not known yet: their servers start later; a tool not
        offered in this session, as web_search without a search, is one pleat has), or gives a
        pattern to a tool with no main argument."""
        from agent.mcp.names import is_mcp_name  # (hashlib: not before the first frame)
        from agent.permissions.rules import url_pattern_problem
        from tools.lsp.tool import LSP_TOOL_NAME
        from tools.memory import MEMORY_TOOL_NAME
        from tools.web_search import WEB_SEARCH_TOOL_NAME

        # Tools pleat offers only where they work (a search to use, language servers and the
        # auto memory on): a rule
        # for one is kept for the sessions that have it (Claude Code's WebSearch rules too).
        sometimes_offered = {LSP_TOOL_NAME, MEMORY_TOOL_NAME, WEB_SEARCH_TOOL_NAME}

        problems: list[str] = []
        for kind, rules in (("allow", self.allow), ("ask", self.ask), ("deny", self.deny)):
            for rule in rules:
                tool = registry.get(rule.tool)
                if tool is None and is_mcp_name(rule.tool):
                    continue  # an MCP server's tools join once it has started
                if tool is None and rule.tool in sometimes_offered:
                    continue
                if tool is None:
                    known = ", ".join(registry.names())
                    problems.append(f'{kind} rule "{rule}" names no tool pleat has ({known})')
                elif rule.pattern is not None and tool.main_argument is None:
                    problems.append(
                        f'{kind} rule "{rule}": {tool.name} has no argument a pattern can '
                        f"match; write {tool.name} alone to match every call"
                    )
                elif rule.pattern is not None and tool.main_argument_kind == "url":
                    if (problem := url_pattern_problem(rule.pattern)) is not None:
                        problems.append(f'{kind} rule "{rule}" can never match: {problem}')
        return problems


async def approve_all(request: ApprovalRequest) -> Decision:
    """Every call that asks is approved (tests, and embedders that decide elsewhere)."""
    return Decision(True)


async def refuse_headless(request: ApprovalRequest) -> Decision:
    """Headless, nobody can be asked: a call that would ask is refused, with the mode it asked
    in and what would let it run there (the example rule is the one "always" would have
    added, when there is one)."""
    if request.outside_sandbox:  # nobody can say yes to leaving the sandbox
        return Decision(
            False,
            f"{request.tool} asked to run outside the sandbox, which nobody can approve in a "
            "headless run; the user can rerun with --sandbox off if the command must, or "
            "allow what it needs (sandbox_network = true for the network)",
        )
    if request.ask_rule:  # an ask rule wants a person to say yes, whatever the mode
        return Decision(
            False,
            f'{request.tool} matches the ask rule "{request.ask_rule}", and nobody can be asked '
            "in a headless run; do not retry it: tell the user what you wanted to do",
        )
    if request.hook_asked:  # no mode or rule lets it run: the hook wants a person to say yes
        why = f" ({request.hook_reason})" if request.hook_reason else ""
        return Decision(
            False,
            f"a PreToolUse hook asks for a person to approve {request.tool}{why}, and nobody "
            "can be asked in a headless run; do not retry it: tell the user what you wanted to do",
        )
    import shlex  # headless only: the TUI's first frame does not wait for it

    example = request.always[0] if request.always else EXAMPLE_RULE
    # Quoted for the shell and for TOML (a rule may hold quotes: `run_command(python -c "...")`).
    in_toml = json.dumps(example, ensure_ascii=False)
    rule = f"--allow {shlex.quote(example)} or a rule in config.toml, e.g. allow = [{in_toml}]"
    if request.mode == "plan":  # another mode would end the plan: only a rule keeps it
        fix = f"allow it with {rule}"
    elif request.mode == "ask" and request.edits_files:
        fix = f"rerun with --permission-mode accept-edits or --yes, or allow it with {rule}"
    else:  # in accept-edits the call is not an edit: only full-auto runs it
        fix = f"rerun with --yes (--permission-mode full-auto), or allow it with {rule}"
    return Decision(
        False,
        f"pleat runs headless in {request.mode} mode, where {request.tool} asks first, so it "
        f"cannot be approved; the user can {fix}",
    )
