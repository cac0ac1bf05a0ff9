"""The [[hooks.EVENT]] tables: what they match, and one clear line for every bad one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import ConfigError, load_config
from agent.hooks.config import DEFAULT_HOOK_TIMEOUT_SECONDS, HOOK_EVENTS, HookSpec, Matcher
from agent.hooks.runner import tool_subjects


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text)
    return path


def error_for(home: Path, text: str) -> str:
    path = write_config(home, text)
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={})
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


@pytest.mark.parametrize(
    ("pattern", "tool", "selected"),
    [
        ("", "run_command", True),  # empty: every tool
        ("*", "edit_file", True),
        ("run_command", "run_command", True),
        ("run_command", "run_command_x", False),  # a plain name is exact, not a prefix
        ("Bash", "run_command", True),  # Claude Code's name for it
        ("Edit|Write", "write_file", True),
        ("Edit|Write", "read_file", False),
        ("edit", "edit_file", False),  # exact and case-sensitive, as in Claude Code
        ("mcp__github__.*", "mcp__github__create_issue", True),  # a regex is searched for
        ("mcp__github__.*", "mcp__gitlab__create_issue", False),
        ("^(read|write)_file$", "write_file", True),
        ("^(read|write)_file$", "edit_file", False),
    ],
)
def test_a_matcher_selects_tools_as_claude_code_does(
    pattern: str, tool: str, selected: bool
) -> None:
    assert Matcher(pattern).matches(tool_subjects(tool)) is selected


def test_an_event_without_subjects_runs_every_hook() -> None:
    assert Matcher("run_command").matches(())  # UserPromptSubmit and Stop have no matcher


def test_hooks_load_in_both_shapes_with_their_time_limits(pleat_home: Path) -> None:
    write_config(
        pleat_home,
        """
model = "m"

[[hooks.PreToolUse]]
matcher = "run_command"
command = "./no-rm.sh"
timeout = 5

[[hooks.PostToolUse]]
matcher = "Edit|Write"
hooks = [{ type = "command", command = "ruff format ." }, { command = "true", timeout = 2.5 }]

[[hooks.Stop]]
command = "./check.sh"
""",
    )
    hooks = load_config({}, environ={}).hooks
    assert hooks == (
        HookSpec("PreToolUse", "./no-rm.sh", Matcher("run_command"), 5.0),
        HookSpec("PostToolUse", "ruff format .", Matcher("Edit|Write")),
        HookSpec("PostToolUse", "true", Matcher("Edit|Write"), 2.5),
        HookSpec("Stop", "./check.sh"),
    )
    assert hooks[1].timeout == DEFAULT_HOOK_TIMEOUT_SECONDS


def test_every_event_is_accepted(pleat_home: Path) -> None:
    write_config(
        pleat_home, "".join(f'[[hooks.{event}]]\ncommand = "true"\n' for event in HOOK_EVENTS)
    )
    assert [spec.event for spec in load_config({}, environ={}).hooks] == list(HOOK_EVENTS)


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ('[[hooks.PreToolUze]]\ncommand = "x"\n', "hooks.PreToolUze is not a hook event"),
        ('[[hooks.PreToolUse]]\nmatcher = "run_command"\n', "hooks.PreToolUse[0] has no command"),
        ('[[hooks.Stop]]\ncommand = "  "\n', "hooks.Stop[0].command must be a non-empty string"),
        ("[[hooks.Stop]]\ncommand = 5\n", "hooks.Stop[0].command must be a non-empty string"),
        (
            '[[hooks.PreToolUse]]\nmatcher = "a[b"\ncommand = "x"\n',
            "hooks.PreToolUse[0].matcher 'a[b' is not a valid pattern",
        ),
        ('[[hooks.PreToolUse]]\nmatcher = 3\ncommand = "x"\n', "matcher must be a string"),
        ('[[hooks.Stop]]\ncommand = "x"\ntimeout = 0\n', "hooks.Stop[0].timeout must be seconds"),
        ('[[hooks.Stop]]\ncommand = "x"\ntimeout = 601\n', "must be seconds in (0, 600]"),
        ('[[hooks.Stop]]\ncommand = "x"\ntimeout = nan\n', "timeout must be seconds"),
        ('[[hooks.Stop]]\ncommand = "x"\ntimeout = "10"\n', "timeout must be seconds"),
        ('[[hooks.Stop]]\ncommand = "x"\ncomand = "y"\n', "unknown key 'comand'"),
        ('hooks = "x"\n', "hooks must be a table of events"),
        ('[hooks]\nStop = "x"\n', "hooks.Stop must be an array of tables"),
        (
            '[[hooks.Stop]]\ncommand = "x"\nhooks = [{ command = "y" }]\n',
            "has both command and hooks",
        ),
        (
            '[[hooks.Stop]]\nhooks = [{ type = "prompt", command = "y" }]\n',
            "hooks.Stop[0].hooks[0]: type 'prompt' is not supported",
        ),
        ("[[hooks.Stop]]\nhooks = [{ timeout = 3 }]\n", "hooks.Stop[0].hooks[0] has no command"),
        ('[[hooks.Stop]]\nhooks = "y"\n', "hooks.Stop[0].hooks must be a list of tables"),
    ],
)
def test_a_bad_hook_table_is_one_line_naming_it(pleat_home: Path, text: str, wanted: str) -> None:
    assert wanted in error_for(pleat_home, text)


def test_hooks_come_from_the_config_file_only() -> None:
    with pytest.raises(ConfigError) as info:
        load_config({}, environ={"PLEAT_HOOKS": "[]"})
    assert "PLEAT_HOOKS: hooks are set in" in str(info.value)
