"""Type while it works, as a person would: pleat runs in a terminal (a private tmux server), the
first prompt's turn is held at a model call, a second prompt is typed meanwhile, and it reaches
the server in the same session, after the first turn's tool result."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from sessions.journal import JOURNAL_NAME
from sessions.paths import session_dir
from sessions.store import list_sessions
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tmux_pleat import TmuxPleat, tmux_available

pytestmark = [
    pytest.mark.slow,  # a real pleat process in a real terminal
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

# Seconds the held model call waits for the test to let it go at most: far past litellm's import
# (about 4 s) and a turn on a loaded machine; a hang fails instead of stalling the suite.
WAIT_SECONDS = 90


class HeldModel:
    """Reads a.txt on the first call, which it answers only once the test lets it go (the turn
    is held while the person types); answers every later call."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.calls = 0

    def __call__(self, body: dict[str, Any]) -> Text | ToolCalls:
        self.calls += 1
        if self.calls == 1:
            self.go.wait(WAIT_SECONDS)
            return ToolCalls([("read_file", {"path": "a.txt"})])
        return Text("read both files")


def test_a_second_prompt_typed_while_the_first_runs_reaches_the_server(workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    held = HeldModel()
    with ScriptedServer(fallback=held) as server, TmuxPleat(workspace, server) as tui:
        try:
            tui.wait_for(lambda s: "Ask pleat" in s, "the prompt")
            tui.send("read a.txt")
            tui.wait_for(lambda _: len(server.requests) == 1, "the first model call")
            tui.send("and b.txt too")
            tui.wait_for(lambda s: "queued and b.txt too" in s, "the queued line")
        finally:
            held.go.set()
        tui.wait_for(lambda s: "read both files" in s, "the answer")
        assert "queued and b.txt too" not in tui.screen()
        tui.keys("C-q")
        tui.wait_for(lambda _: not tui.running(), "pleat to quit")
    assert len(server.requests) == 2  # the second prompt did not wait for a turn of its own
    second = server.requests[1].messages
    assert {"role": "user", "content": "read a.txt"} in second  # the same conversation
    assert second[-2]["role"] == "tool" and "alpha" in second[-2]["content"]
    assert second[-1] == {"role": "user", "content": "and b.txt too"}
    sessions = list_sessions(workspace)
    assert len(sessions) == 1
    records = (session_dir(sessions[0].id) / JOURNAL_NAME).read_text().splitlines()
    prompts = [
        record["message"]["content"]
        for record in map(json.loads, records)
        if record["type"] == "message" and record["message"]["role"] == "user"
    ]
    assert prompts == ["read a.txt", "and b.txt too"]
