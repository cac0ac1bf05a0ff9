"""Permission rules fuzzed with command lines built from shell syntax: no crash, no widening."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.permissions.rules import allowing_rules, always_rules, denying_rule, parse_rule
from agent.permissions.shell_split import split_command
from tools.shell import RunCommandTool

# Lines per property: each is judged in well under a millisecond, so 400 take about a second
# while every operator meets every quote many times.
EXAMPLES = 400
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# Slow (hypothesis fuzzing): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

RUN = RunCommandTool()
# Words and the shell's syntax, joined at random: what a command line is made of.
PIECES = [
    "git", "status", "rm", "-rf", "x", "pytest", "sudo", "env", "A=1", "timeout", "10", "sh",
    "-c", "eval", "echo", " ", "  ", "\t", ";", "&", "&&", "|", "||", "\n", "\r", "'", '"',
    "\\", "$(", "`", ")", "(", "{", "}", "<", ">", ">>", "2>&1", "/dev/null", "<<", "*", "$X",
    "\x1b", "\x00", "é", "\u202e",
]  # fmt: skip
LINES = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)
EXACT = [parse_rule("run_command(git status)")]
PREFIX = [parse_rule("run_command(pytest *)")]
DENY = [parse_rule("run_command(rm *)")]


@FUZZ
@given(line=LINES)
def test_rules_never_crash_widen_or_miss(line: str, workspace: Path) -> None:
    args = {"command": line}
    parts = split_command(line)
    denied = denying_rule(DENY, RUN, args, workspace)
    if allowing_rules(EXACT, RUN, args, workspace):
        # Allowed by `git status` alone: the line is plain and every command is exactly it.
        assert parts.plain and set(parts.allow_views()) == {"git status"}
        assert not any(c in line for c in "$`<>(){}\\\r\x00\x1b")
    if allowing_rules(PREFIX, RUN, args, workspace):
        # Allowed by `pytest *` alone: every command runs pytest, nothing else.
        assert parts.plain
        assert all(v == "pytest" or v.startswith("pytest ") for v in parts.allow_views())
    if any(part.startswith("rm ") for part in parts.parts):
        assert denied is not None  # a command that runs rm is always caught


@FUZZ
@given(line=LINES)
def test_always_allows_what_was_approved_and_stays_plain(line: str, workspace: Path) -> None:
    """The rules "always" adds let the same command run again, and never one that is not
    plain."""
    rules = always_rules(RUN, {"command": line}, workspace)
    if rules:
        assert split_command(line).plain
        assert allowing_rules(list(rules), RUN, {"command": line}, workspace)
        for rule in rules:
            assert parse_rule(str(rule)) == rule
