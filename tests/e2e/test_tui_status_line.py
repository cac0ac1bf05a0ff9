"""The status line in the TUI (Textual's pilot): a command's first line shown with its colours as
styles, refreshed after a turn; a failing command blanks the line and says why once."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.content import Content

from agent.status_line.spec import parse_status_line
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import exchange, make_app, started, wait_for
from tui.widgets.notice import Notice
from tui.widgets.status_line import StatusLine

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow


def spec(command: str) -> object:
    found, problems = parse_status_line({"type": "command", "command": command}, "test")
    assert found is not None and not problems
    return found


def shown(app: object) -> str:
    line = app.query_one(StatusLine)  # type: ignore[attr-defined]
    return str(line.render()) if line.display else ""


def notices(app: object) -> list[str]:
    return [str(n.entry.text) for n in app.query(Notice)]  # type: ignore[attr-defined]


async def test_the_line_shows_in_colour_and_follows_the_turns(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    count = tmp_path / "count"
    command = (
        f"n=$(( $(cat {count} 2>/dev/null || echo 0) + 1 )); echo $n > {count}; "
        "cat > /dev/null; printf '\\033[31mred\\033[0m run %s\\nnot shown\\n' $n"
    )
    server.push(Text("hello to you"))
    app = make_app(server, workspace, status_line=spec(command))
    async with app.run_test() as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: shown(app).startswith("red run "), "the line")
        content = app.query_one(StatusLine).render()
        assert isinstance(content, Content) and "not shown" not in str(content)
        [red] = content.spans  # the colour became a style over "red", no escape is left
        assert (red.start, red.end, red.style.foreground.ansi) == (0, 3, 1)  # type: ignore[union-attr]
        runs = int(count.read_text())
        await exchange(pilot, app, "hello")
        await wait_for(pilot, lambda: int(count.read_text()) > runs, "a run after the turn")
        await wait_for(pilot, lambda: shown(app) == f"red run {count.read_text().strip()}", "it")


async def test_a_failing_command_says_why_once_and_never_holds_the_prompt(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    command = f"echo run >> {runs}; echo 'statusline.sh: jq: not found' >&2; exit 127"
    server.push(Text("first answer"), Text("second answer"))
    app = make_app(server, workspace, status_line=spec(command))
    async with app.run_test() as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: any("jq: not found" in n for n in notices(app)), "why")
        await exchange(pilot, app, "one")
        await exchange(pilot, app, "two")  # the turns' ends ran it again (one run for both
        # when they end within DEBOUNCE_SECONDS)
        await wait_for(pilot, lambda: len(runs.read_text().splitlines()) >= 2, "more runs")
        await pilot.pause(0.5)
        said = [n for n in notices(app) if "status line command" in n]
        assert len(said) == 1 and "exited with status 127" in said[0]
        assert shown(app) == ""
        assert [r.messages[-1]["content"] for r in server.requests] == ["one", "two"]
