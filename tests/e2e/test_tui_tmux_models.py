"""`/model NAME` with no model at start, as a person does it: pleat in a terminal (a tmux server
of the test's own), keys typed, the screen read; the prompt after it reaches the scripted server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tmux_pleat import TmuxPleat, tmux_available

pytestmark = [
    pytest.mark.slow,  # a real terminal and a real process (litellm's import takes seconds)
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

ANSWER = "hello from the scripted server"


def test_model_name_works_with_no_model_at_start(workspace: Path) -> None:
    # The server lists no model (GET /v1/models is empty), so nothing is found at start either.
    with ScriptedServer(api_key=TEST_API_KEY) as server:
        server.fallback = lambda body: Text(f"{ANSWER} to {body['model']}")
        no_discovery = {"PLEAT_LOCAL_MODEL_SERVERS": ""}  # discovery asks nothing else
        with TmuxPleat(workspace, server, model=None, env=no_discovery) as tui:
            tui.wait_for(lambda s: "No model is configured." in s, "the configuration help")
            assert server.listings >= 1  # the configured server was asked, and listed nothing
            tui.send(f"/model {TEST_MODEL}")
            tui.wait_for(lambda s: f"model: {TEST_MODEL} (a new session" in s, "the session")
            tui.send("hello there")
            screen = tui.wait_for(lambda s: f"{ANSWER} to {TEST_MODEL}" in s, "the answer")
            assert f"{TEST_MODEL} ·" in screen  # the status bar names the model
    assert [r.body["model"] for r in server.requests] == [TEST_MODEL]
    assert server.requests[0].messages[-1]["content"] == "hello there"
