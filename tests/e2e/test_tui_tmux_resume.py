"""The resume picker as a person uses it: pleat in a terminal (a tmux server of the test's own),
`/rename` typed, `/resume` typed, the list filtered as the letters are typed, a session chosen
with Enter; then `pleat --resume` without an id opens the same picker, the name kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tmux_pleat import TmuxPleat, tmux_available
from tests.support.tui_support import seed_session

pytestmark = [
    pytest.mark.slow,  # a real terminal and a real process (litellm's import takes seconds)
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

# The name typed with /rename, and the title of the seeded session (its first request).
NAME = "pelican notes"
SEEDED = "question 0: word0 word0 word0"
# How the toast saying the app is busy starts (tui/host.py BUSY; the rest may wrap).
BUSY = "A request is running"
# Times /resume is typed while the app says it is busy: a turn's end holds it a moment at most.
TRIES = 5


def open_picker(tui: TmuxPleat) -> None:
    """Type /resume until the picker shows, as a person would: a turn just ending may still
    hold the app for a moment, and /resume then says to wait."""
    for _ in range(TRIES):
        tui.send("/resume")
        screen = tui.wait_for(lambda s: "2 of 2 sessions" in s or BUSY in s, "the picker")
        if "2 of 2 sessions" in screen:
            return
        tui.wait_for(lambda s: BUSY not in s, "the notice to go")
    raise AssertionError(f"/resume stayed busy; the screen:\n{tui.screen()}")


def test_resume_lists_filters_as_you_type_and_shows_the_rename(
    server: ScriptedServer, workspace: Path
) -> None:
    seeded = seed_session(workspace, 2)
    server.fallback = lambda body: Text("birds are noted")
    with TmuxPleat(workspace, server) as tui:
        tui.wait_for(lambda s: "Ask pleat" in s, "the prompt")
        tui.send("tell me about large birds")
        tui.wait_for(lambda s: "birds are noted" in s, "the answer")
        tui.send(f"/rename {NAME}")
        tui.wait_for(lambda s: f"now called “{NAME}”" in s, "the rename")
        tui.wait_for(lambda _: " · idle · " in tui.status_line(), "the turn's end")
        open_picker(tui)
        screen = tui.screen()
        assert NAME in screen and SEEDED in screen and "← open now" in screen
        assert "1 turn ·" in screen and "2 turns ·" in screen
        tui.type("pelic")
        screen = tui.wait_for(lambda s: "1 of 2 sessions" in s, "the filter")
        assert NAME in screen and SEEDED not in screen
        tui.keys(*["BSpace"] * len("pelic"))
        tui.wait_for(lambda s: "2 of 2 sessions" in s, "the filter cleared")
        tui.type("large")  # the typed prompts are searched too, not only the titles
        screen = tui.wait_for(lambda s: "1 of 2 sessions" in s and "large" in s, "the prompts")
        assert NAME in screen and SEEDED not in screen
        tui.keys(*["BSpace"] * len("large"))
        tui.wait_for(lambda s: "2 of 2 sessions" in s, "the filter cleared")
        tui.type("word0")
        screen = tui.wait_for(lambda s: "1 of 2 sessions" in s and "word0" in s, "the other")
        tui.keys("Enter")
        tui.wait_for(lambda s: "answer 1" in s and seeded in s, "the seeded session resumed")
        tui.keys("C-q")
        tui.wait_for(lambda _: not tui.running(), "pleat to quit")

    # `pleat --resume` without an id: the picker first; the name survived (it is journaled).
    with TmuxPleat(workspace, server, "--resume") as tui:
        screen = tui.wait_for(lambda s: "2 of 2 sessions" in s, "the picker at start")
        assert NAME in screen
        tui.type("pelican")
        tui.wait_for(lambda s: "1 of 2 sessions" in s, "the filter")
        tui.keys("Enter")
        tui.wait_for(lambda s: "tell me about large birds" in s, "the renamed session resumed")
        tui.keys("C-q")
        tui.wait_for(lambda _: not tui.running(), "pleat to quit")
    assert len(server.requests) == 1  # neither the picker nor /rename asked the model
