"""The permission decision (mode x rule x tool), the approval it asks, plan mode's tool and note."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from agent.mcp.tool import McpTool
from agent.permissions.plan_mode import (
    LEFT_PLAN_NOTE,
    MAX_PLAN_CHARS,
    PLAN_NOTE,
    ExitPlanModeTool,
    PlanVerdict,
    mode_note,
    review_headless,
)
from agent.permissions.policy import (
    MODES,
    ApprovalRequest,
    Decision,
    Mode,
    Permissions,
    approve_all,
    refuse_headless,
)
from sessions import messages as msg
from tools.base import Tool, ToolContext, ToolError
from tools.edit_file import EditFileTool
from tools.read_file import ReadFileTool
from tools.registry import default_registry
from tools.shell import RunCommandTool
from tools.web_fetch import WebFetchTool
from tools.write_file import WriteFileTool

READ, EDIT, WRITE, RUN = ReadFileTool(), EditFileTool(), WriteFileTool(), RunCommandTool()
CALLS: dict[str, tuple[Tool, dict[str, Any]]] = {
    "read": (READ, {"path": "a.py"}),
    "edit": (EDIT, {"path": "a.py", "old_string": "a", "new_string": "b"}),
    "write": (WRITE, {"path": "a.py", "content": "x"}),
    "pytest": (RUN, {"command": "pytest -q"}),
    "rm": (RUN, {"command": "rm -rf build"}),
}
# The decision of each mode for each call, with no rule: (read, edit, write, pytest, rm).
WITHOUT_RULES: dict[Mode, tuple[str, ...]] = {
    "ask": ("run", "ask", "ask", "ask", "ask"),
    "accept-edits": ("run", "run", "run", "ask", "ask"),
    "plan": ("run", "refuse", "refuse", "refuse", "refuse"),
    "full-auto": ("run", "run", "run", "run", "run"),
}
# ... with allow = ["run_command(pytest *)"] and deny = ["run_command(rm *)", "read_file(a.py)"].
WITH_RULES: dict[Mode, tuple[str, ...]] = {
    "ask": ("refuse", "ask", "ask", "run", "refuse"),
    "accept-edits": ("refuse", "run", "run", "run", "refuse"),
    "plan": ("refuse", "refuse", "refuse", "refuse", "refuse"),
    "full-auto": ("refuse", "run", "run", "run", "refuse"),
}


def permissions(mode: Mode, *, rules: bool) -> Permissions:
    if not rules:
        return Permissions(mode)
    return Permissions.from_settings(
        mode, ["run_command(pytest *)"], ["run_command(rm *)", "read_file(a.py)"]
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rules", [False, True])
def test_decision_table(mode: Mode, rules: bool, workspace: Path) -> None:
    table = WITH_RULES if rules else WITHOUT_RULES
    decided = permissions(mode, rules=rules)
    got = tuple(decided.decide(tool, args, workspace).action for tool, args in CALLS.values())
    assert got == table[mode]


def test_refusals_name_the_rule_and_the_mode(workspace: Path) -> None:
    denied = permissions("full-auto", rules=True).decide(RUN, {"command": "rm -rf x"}, workspace)
    assert 'the rule "run_command(rm *)"' in denied.reason
    planned = Permissions("plan").decide(WRITE, {"path": "a", "content": ""}, workspace)
    assert "plan mode" in planned.reason and "exit_plan_mode" in planned.reason


def test_always_adds_a_session_rule_that_is_forgotten(workspace: Path) -> None:
    decided = Permissions("ask")
    verdict = decided.decide(RUN, {"command": "pytest -q"}, workspace)
    assert verdict.action == "ask" and [str(r) for r in verdict.always] == ["run_command(pytest *)"]
    decided.remember(map(str, verdict.always))
    assert decided.decide(RUN, {"command": "pytest tests/unit"}, workspace).action == "run"
    assert decided.decide(RUN, {"command": "pytest; rm -rf x"}, workspace).action == "ask"
    decided.forget_session()
    assert decided.decide(RUN, {"command": "pytest -q"}, workspace).action == "ask"


def test_a_session_rule_never_beats_a_deny_rule(workspace: Path) -> None:
    decided = permissions("ask", rules=True)
    decided.remember(["run_command"])
    assert decided.decide(RUN, {"command": "rm -rf x"}, workspace).action == "refuse"


def test_a_variant_of_a_call_runs_only_if_decided_no_more_strictly(workspace: Path) -> None:
    """What web_fetch asks before following a redirect: run < ask < refuse."""
    fetch = default_registry().get("web_fetch")
    assert fetch is not None
    rules = Permissions.from_settings(
        "ask", ["web_fetch(https://docs.example.com/guide/*)"], ["web_fetch(domain:evil.com)"]
    )
    allowed = rules.as_free_as(fetch, {"url": "https://docs.example.com/guide/a"}, workspace)
    assert allowed({"url": "https://docs.example.com/guide/b"})
    assert not allowed({"url": "https://docs.example.com/other"})  # would ask
    assert not allowed({"url": "https://www.docs.example.com/guide/b"})
    approved = rules.as_free_as(fetch, {"url": "https://site.org/a"}, workspace)  # asked
    assert approved({"url": "https://site.org/b"}) and approved(
        {"url": "https://docs.example.com/guide/c"}
    )
    assert not approved({"url": "https://evil.com/b"})  # denied
    rules.set_mode("full-auto")
    assert not rules.as_free_as(fetch, {"url": "https://a.org/"}, workspace)(
        {"url": "https://evil.com/"}
    )


def test_the_mode_cycles_and_says_so() -> None:
    decided = Permissions()
    seen: list[str] = []
    decided.on_change(seen.append)
    assert [decided.cycle() for _ in MODES] == ["accept-edits", "plan", "full-auto", "ask"]
    assert seen == ["accept-edits", "plan", "full-auto", "ask"]
    decided.set_mode("ask")  # no change: nothing said
    assert len(seen) == 4


async def test_check_asks_with_the_always_rules_and_words_the_refusal(workspace: Path) -> None:
    asked: list[ApprovalRequest] = []

    async def no(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision(False, "not now")

    context = ToolContext(workspace)
    refusal = await Permissions().check(RUN, {"command": "git status"}, context, no)
    assert refusal == "refused: the user did not approve run_command: not now"
    assert asked[0].always == ("run_command(git status *)",) and asked[0].preview == "git status"
    assert await Permissions().check(RUN, {"command": "ls"}, context, approve_all) is None
    headless = await Permissions().check(RUN, {"command": "ls"}, context, refuse_headless)
    assert headless is not None and "--permission-mode" in headless and "allow" in headless


async def never_called(remote: str, args: dict[str, Any]) -> Any:
    raise AssertionError("a refused call never reaches its MCP server")


MCP = McpTool("docs", "mcp__docs__search", "search", "searches", {"type": "object"}, never_called)
# Headless refusals by mode and call: what the refusal must say (the mode, and a fix that works
# for that call there), and what it must not (a fix that would not).
HEADLESS_REFUSALS: dict[str, tuple[Mode, Tool, dict[str, Any], tuple[str, ...], str]] = {
    "ask, a write": (
        "ask", WRITE, {"path": "a.py", "content": "x"},
        ("in ask mode", "--permission-mode accept-edits or --yes", 'allow = ["write_file"]'),
        "",
    ),
    "ask, a command": (
        "ask", RUN, {"command": "pytest -q"},
        ("in ask mode", "--yes", "--allow 'run_command(pytest *)'"),
        "accept-edits",
    ),
    "accept-edits, an MCP call": (
        "accept-edits", MCP, {"q": "x"},
        ("in accept-edits mode", "--yes", "--allow mcp__docs__search", '["mcp__docs__search"]'),
        "--permission-mode accept-edits",
    ),
    "plan, a fetch": (
        "plan", WebFetchTool(), {"url": "https://docs.python.org/3/"},
        ("in plan mode", 'allow = ["web_fetch(https://docs.python.org/*)"]'),
        "--yes",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", HEADLESS_REFUSALS)
async def test_a_headless_refusal_names_the_mode_and_a_fix_that_works_there(
    case: str, workspace: Path
) -> None:
    mode, tool, args, said, unsaid = HEADLESS_REFUSALS[case]
    refusal = await Permissions(mode).check(tool, args, ToolContext(workspace), refuse_headless)
    assert refusal is not None and refusal.startswith("refused: the user did not approve")
    for words in said:
        assert words in refusal
    assert not unsaid or unsaid not in refusal


async def test_a_headless_refusal_quotes_its_rule_for_the_shell_and_for_toml(
    workspace: Path,
) -> None:
    command = 'python -c "print(1)"'  # an interpreter: "always" gives the exact command
    refusal = await Permissions().check(
        RUN, {"command": command}, ToolContext(workspace), refuse_headless
    )
    assert refusal is not None
    rule = f"run_command({command})"
    shell = refusal.split("--allow ", 1)[1].split(" or a rule", 1)[0]
    assert shlex.split(shell) == [rule]
    assert tomllib.loads(refusal.split("e.g. ", 1)[1]) == {"allow": [rule]}


def test_rule_problems_name_rules_that_cannot_match() -> None:
    decided = Permissions.from_settings(
        "ask", ["run_comand(pytest *)", "exit_plan_mode(x)"], ["edit_file"]
    )
    registry = default_registry()
    registry.register(ExitPlanModeTool(decided, review_headless))
    misspelt, no_argument = decided.rule_problems(registry)
    assert 'allow rule "run_comand(pytest *)" names no tool' in misspelt
    assert "exit_plan_mode has no argument" in no_argument
    assert (
        Permissions.from_settings("ask", ["list_dir(x)"], []).rule_problems(default_registry())
        == []
    )


def test_a_rule_for_a_tool_not_offered_in_this_session_is_no_problem() -> None:
    """web_search without a search, memory with the auto memory off: the tools are pleat's, a
    Claude Code user's WebSearch rule among them, and their rules wait for the sessions that
    offer them."""
    sometimes = Permissions.from_settings("ask", ["web_search", "memory"], ["web_serch"])
    assert [p.split(" names")[0] for p in sometimes.rule_problems(default_registry())] == [
        'deny rule "web_serch"'
    ]


# -- plan mode ---------------------------------------------------------------------------------


def test_the_plan_note_goes_with_each_prompt_in_plan_mode_and_once_after() -> None:
    history = [msg.user("first")]
    note = mode_note("plan", history)
    assert note is not None and note.content == PLAN_NOTE and note.meta["injected"]
    history.append(note)
    assert mode_note("plan", history) is not None  # every prompt in plan mode
    left = mode_note("accept-edits", history)
    assert left is not None and left.content == LEFT_PLAN_NOTE.format(mode="accept-edits")
    history.append(left)
    assert mode_note("accept-edits", history) is None  # said once
    assert mode_note("ask", [msg.user("x")]) is None


async def review_accepts(plan: str) -> PlanVerdict:
    return PlanVerdict("accepted")


async def review_sends_back(plan: str) -> PlanVerdict:
    return PlanVerdict("keep_planning", "split step 2")


async def test_exit_plan_mode(workspace: Path) -> None:
    context = ToolContext(workspace)
    decided = Permissions("plan")
    accepted = await ExitPlanModeTool(decided, review_accepts).run({"plan": "1. do"}, context)
    assert decided.mode == "accept-edits" and "accepted" in accepted.text
    decided.set_mode("plan")
    kept = await ExitPlanModeTool(decided, review_sends_back).run({"plan": "1. do"}, context)
    assert decided.mode == "plan" and "keep planning" in kept.text and "split step 2" in kept.text
    headless = await ExitPlanModeTool(decided, review_headless).run({"plan": "1. do"}, context)
    assert decided.mode == "plan" and "headless" in headless.text
    decided.set_mode("ask")
    outside = await ExitPlanModeTool(decided, review_accepts).run({"plan": "1. do"}, context)
    assert decided.mode == "ask" and "nothing to exit" in outside.text
    tool = ExitPlanModeTool(decided, review_accepts)
    assert Permissions("plan").decide(tool, {"plan": "x"}, workspace).action == "run"


async def test_an_oversized_plan_is_refused_before_the_review(workspace: Path) -> None:
    reviewed: list[str] = []

    async def review(plan: str) -> PlanVerdict:
        reviewed.append(plan)
        return PlanVerdict("accepted")

    tool = ExitPlanModeTool(Permissions("plan"), review)
    with pytest.raises(ToolError, match="a plan is at most"):
        await tool.run({"plan": "x" * (MAX_PLAN_CHARS + 1)}, ToolContext(workspace))
    assert reviewed == [] and tool.permissions.mode == "plan"
