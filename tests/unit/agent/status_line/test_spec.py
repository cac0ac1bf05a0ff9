"""The status line setting, read from config.toml's table or Claude Code's statusLine object."""

from __future__ import annotations

import pytest

from agent.status_line.spec import MAX_PADDING, StatusLineSpec, parse_status_line


def test_claude_codes_documented_setting_is_read_as_written() -> None:
    value = {"type": "command", "command": "~/.claude/statusline.sh", "padding": 0}
    assert parse_status_line(value, "settings.json") == (
        StatusLineSpec("~/.claude/statusline.sh", 0, None, "settings.json"),
        (),
    )


def test_padding_and_a_refresh_interval_in_either_spelling() -> None:
    spec, problems = parse_status_line({"command": "x", "padding": 3, "refreshInterval": 10}, "f")
    assert problems == () and spec is not None
    assert (spec.padding, spec.refresh_seconds) == (3, 10.0)
    spec, _ = parse_status_line({"command": "x", "refresh_interval": 2.5}, "f")
    assert spec is not None and spec.refresh_seconds == 2.5


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("~/.claude/statusline.sh", "must be a table with type and command"),
        ({"type": "prompt", "command": "x"}, 'type must be "command"'),
        ({"type": "command"}, "command must be a command to run"),
        ({"type": "command", "command": "   "}, "command must be a command to run"),
        ({"type": "command", "command": ["sh", "x"]}, "command must be a command to run"),
    ],
)
def test_no_command_to_run_is_no_spec_and_one_line(value: object, said: str) -> None:
    spec, problems = parse_status_line(value, "f.json")
    assert spec is None
    assert len(problems) == 1 and said in problems[0] and problems[0].startswith("f.json: ")
    assert "\n" not in problems[0]


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"padding": -1}, "padding must be an integer from 0"),
        ({"padding": MAX_PADDING + 1}, "padding must be an integer from 0"),
        ({"padding": True}, "padding must be an integer from 0"),
        ({"refreshInterval": 0}, "refreshInterval must be seconds from 1"),
        ({"refreshInterval": float("nan")}, "refreshInterval must be seconds from 1"),
        ({"colour": "red"}, "colour is not a key pleat knows"),
    ],
)
def test_a_bad_optional_key_is_named_and_the_command_still_runs(
    extra: dict[str, object], said: str
) -> None:
    spec, problems = parse_status_line({"command": "x", **extra}, "f", label="status_line")
    assert spec is not None and spec.command == "x" and spec.padding == 0
    assert spec.refresh_seconds is None
    assert len(problems) == 1 and said in problems[0] and "status_line." in problems[0]
