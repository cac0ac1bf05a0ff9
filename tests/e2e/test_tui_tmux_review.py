"""/review as a person types it: pleat in a terminal (a private tmux server) with --yes, a changed
file in a real git repository; the review's write is refused on screen, the findings shown, and
the next request's write runs (the mode came back)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.git_support import git_repo
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tmux_pleat import TmuxPleat, tmux_available
from tests.support.tui_support import model

pytestmark = [
    pytest.mark.slow,  # a real pleat process in a real terminal
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]


def test_review_typed_refuses_its_write_and_the_next_request_writes(workspace: Path) -> None:
    git_repo(workspace, {"app.py": b"x = 1\n"})
    (workspace / "app.py").write_text("x = 2\n")
    replies = model(
        [
            ToolCalls([("write_file", {"path": "app.py", "content": "x = 3\n"})]),
            Text("Finding: app.py sets x to 2."),
            ToolCalls([("write_file", {"path": "app.py", "content": "x = 3\n"})]),
            Text("Set x to 3."),
        ]
    )
    with ScriptedServer(fallback=replies) as server, TmuxPleat(workspace, server, "--yes") as tui:
        tui.wait_for(lambda s: "Ask pleat" in s, "the prompt")
        tui.send("/review")
        tui.wait_for(lambda s: "Finding: app.py sets x to 2." in s, "the findings")
        assert "✗ write_file(path='app.py'" in tui.screen()  # the refused write, on screen
        assert (workspace / "app.py").read_text() == "x = 2\n"
        assert "full-auto mode" in tui.status_line()
        tui.send("set x to 3")
        tui.wait_for(lambda s: "Set x to 3." in s, "the second answer")
        tui.keys("C-q")
        tui.wait_for(lambda _: not tui.running(), "pleat to quit")
    assert (workspace / "app.py").read_text() == "x = 3\n"
    assert "+x = 2" in str(server.requests[0].messages[-1]["content"])
