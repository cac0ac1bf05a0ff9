"""Running the status line command: real processes, their stdin, time limit, output and failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.status_line.clean import MAX_LINE_CHARS
from agent.status_line.command import StatusLineCommand
from agent.status_line.spec import StatusLineSpec

# An API key as long as a real one (a short value is not taken for a secret).
KEY = "sk-test-status-line-0123456789abcdef"
# A short limit for the tests of the time-out (the real one is STATUS_TIMEOUT_SECONDS).
QUICK_TIMEOUT = 0.5


def command(line: str, workspace: Path, **kwargs: object) -> StatusLineCommand:
    return StatusLineCommand(StatusLineSpec(line), workspace, **kwargs)  # type: ignore[arg-type]


async def test_the_json_arrives_on_stdin_and_the_first_line_comes_back(
    workspace: Path, tmp_path: Path
) -> None:
    got = tmp_path / "got.json"
    runner = command(
        f"cat > {got}; printf '\\033[32mok\\033[0m \\033[2J\\033]52;c;eA==\\007done\\nno'",
        workspace,
    )
    outcome = await runner.run({"session_id": "s", "model": {"id": "m"}, "text": "é\u202e"})
    assert outcome.line == "\x1b[32mok\x1b[0m done" and outcome.problem is None
    assert json.loads(got.read_text()) == {
        "session_id": "s",
        "model": {"id": "m"},
        "text": "é\u202e",
    }


async def test_it_runs_in_the_workspace_with_the_hooks_environment(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = KEY
    monkeypatch.setenv("SOME_SETTING", f"prefix-{key}")  # holds the API key: left out
    seen = tmp_path / "seen"
    outcome = await command(
        f"pwd > {seen}; env >> {seen}; echo fine", workspace, secrets=[key]
    ).run({})
    assert outcome.line == "fine"
    text = seen.read_text()
    assert text.splitlines()[0] == str(workspace)
    assert f"CLAUDE_PROJECT_DIR={workspace}" in text
    assert key not in text


async def test_a_failing_command_blanks_the_line_and_says_why_once(workspace: Path) -> None:
    runner = command("echo partial; echo 'no such thing' >&2; exit 3", workspace)
    first = await runner.run({})
    assert first.line == "" and first.problem is not None
    assert "exited with status 3: no such thing" in first.problem
    assert "\n" not in first.problem
    again = await runner.run({})
    assert again == type(first)("", None)  # not said a second time
    runner.spec = StatusLineSpec("cat >/dev/null; echo back")
    assert (await runner.run({})).line == "back"


async def test_a_slow_command_is_killed_at_its_time_limit(workspace: Path, tmp_path: Path) -> None:
    late = tmp_path / "late"
    runner = command(f"sleep 30; touch {late}", workspace, timeout=QUICK_TIMEOUT)
    outcome = await runner.run({})
    assert outcome.line == ""
    assert outcome.problem is not None and "timed out after 0.5 s" in outcome.problem
    assert not late.exists()


async def test_a_flood_of_output_is_read_bounded(workspace: Path) -> None:
    runner = command("head -c 5000000 /dev/zero | tr '\\0' 'x'; echo; echo second", workspace)
    outcome = await runner.run({})
    assert outcome.problem is None
    assert set(outcome.line) == {"x"} and len(outcome.line) == MAX_LINE_CHARS


async def test_a_command_that_prints_nothing_shows_nothing_and_says_nothing(
    workspace: Path,
) -> None:
    outcome = await command("cat > /dev/null", workspace).run({"a": 1})
    assert outcome.line == "" and outcome.problem is None
