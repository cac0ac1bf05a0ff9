"""pleat's built-in prompts in the TUI: /review shows as typed, sends the changes, refuses a write
in its turn and leaves the mode as it was, so the next request writes; /init asks for AGENTS.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.commands.builtin_prompts import INIT_PROMPT, NO_CHANGES, REVIEW_PROMPT
from agent.permissions.policy import READ_ONLY_REFUSAL
from tests.support.git_support import git_repo
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import command, exchange, make_app, model, started, wait_for
from tui.widgets.notice import Notice
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set.
pytestmark = pytest.mark.slow


def last_user(server: ScriptedServer, index: int) -> str:
    users = [m for m in server.requests[index].messages if m["role"] == "user"]
    return str(users[-1]["content"])


async def test_review_reads_only_for_its_turn_and_the_mode_returns(
    server: ScriptedServer, workspace: Path
) -> None:
    git_repo(workspace, {"app.py": b"x = 1\n"})
    (workspace / "app.py").write_text("x = 2\n")
    server.fallback = model(
        [
            ToolCalls([("write_file", {"path": "app.py", "content": "x = 3\n"})]),
            Text("Finding: x changed to 2."),
            ToolCalls([("write_file", {"path": "app.py", "content": "x = 3\n"})]),
            Text("Written."),
        ]
    )
    app = make_app(server, workspace, approve_everything=True)
    async with app.run_test() as pilot:
        await started(pilot, app)
        assert app.agent is not None
        permissions = app.agent.permissions
        await command(pilot, app, "/review")
        await wait_for(pilot, lambda: len(server.requests) >= 2 and app.turn, "the review")
        await wait_for(pilot, lambda: app.turn is not None and app.turn.is_finished, "its end")
        assert [u.text for u in app.query(UserMessage)] == ["/review"]  # as typed
        assert last_user(server, 0).startswith(REVIEW_PROMPT) and "+x = 2" in last_user(server, 0)
        refused = [m for m in server.requests[1].messages if m["role"] == "tool"]
        assert refused[0]["content"] == "refused: " + READ_ONLY_REFUSAL.format(tool="write_file")
        assert (workspace / "app.py").read_text() == "x = 2\n"
        assert permissions.mode == "full-auto" and not permissions.read_only_turn

        await exchange(pilot, app, "now set x to 3")  # the mode is back: the write runs
        assert (workspace / "app.py").read_text() == "x = 3\n"


async def test_init_sends_its_prompt_and_review_says_when_nothing_changed(
    server: ScriptedServer, workspace: Path
) -> None:
    git_repo(workspace)
    server.fallback = model([Text("AGENTS.md is up to date.")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await command(pilot, app, "/review")
        await wait_for(
            pilot, lambda: NO_CHANGES in [n.text for n in app.query(Notice)], "the refusal"
        )
        assert server.requests == [] and app.turn is None  # no request for nothing
        await command(pilot, app, "/init keep it short")
        await wait_for(pilot, lambda: app.turn is not None and app.turn.is_finished, "the turn")
        assert last_user(server, 0) == f"{INIT_PROMPT}\n\nThe user adds: keep it short"
        assert [u.text for u in app.query(UserMessage)] == ["/init keep it short"]
