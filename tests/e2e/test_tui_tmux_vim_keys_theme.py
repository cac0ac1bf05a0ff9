"""Vim keys, a rebound key and a theme kept across a restart, as a person does it: pleat in a
terminal (a tmux server of the test's own), keys typed, the screen read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer
from tests.support.tmux_pleat import TmuxPleat, tmux_available

pytestmark = [
    pytest.mark.slow,  # a real terminal and two starts of a real process
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

# config.toml: Shift+Tab's "next permission mode" on F2 as well.
CONFIG = '[keys]\ncycle_mode = "shift+tab,f2"\n'


def prompt_line(screen: str) -> str:
    """What the prompt holds: the line under its border title (the vim mode)."""
    lines = screen.splitlines()
    at = next(i for i, line in enumerate(lines) if "-- NORMAL --" in line or "-- INSERT --" in line)
    return lines[at + 1].strip(" ▊▎")


def test_vim_keys_a_rebound_key_and_a_theme_kept_after_a_restart(
    workspace: Path, pleat_home: Path
) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text(CONFIG)
    with ScriptedServer(api_key=TEST_API_KEY) as server:
        with TmuxPleat(workspace, server) as tui:
            tui.wait_for(lambda s: f"{TEST_MODEL} ·" in s, "the status bar")
            tui.send("/vim")
            tui.wait_for(lambda s: "vim keys on" in s and "-- INSERT --" in s, "insert mode")
            tui.type("hello world")
            tui.keys("Escape")
            tui.wait_for(lambda s: "-- NORMAL --" in s, "normal mode")
            tui.keys("0", "d", "w")
            tui.wait_for(lambda s: prompt_line(s) == "world", "dw")
            tui.keys("i")
            tui.wait_for(lambda s: "-- INSERT --" in s, "insert mode again")
            tui.type("big ")
            tui.keys("Escape")
            tui.wait_for(lambda s: prompt_line(s) == "big world" and "NORMAL" in s, "the insert")
            tui.keys("u")
            tui.wait_for(lambda s: prompt_line(s) == "world", "the insert undone")
            tui.keys("u")
            tui.wait_for(lambda s: prompt_line(s) == "hello world", "the dw undone")

            tui.keys("F2")  # the rebound key: the next permission mode
            tui.wait_for(lambda s: "accept-edits mode" in tui.status_line(), "F2's mode")

            tui.keys("d", "d", "i")
            tui.send("/theme textual-light")
            tui.wait_for(lambda s: "theme: textual-light (kept for the next start)" in s, "it")
            tui.keys("C-q")
            tui.wait_for(lambda s: not tui.running(), "pleat to quit")
        assert server.requests == []  # nothing of this reached the model
        with TmuxPleat(workspace, server) as tui:
            tui.wait_for(lambda s: f"{TEST_MODEL} ·" in s, "the status bar")
            tui.send("/theme")
            tui.wait_for(lambda s: "theme: textual-light in use" in s, "the theme kept")
            tui.wait_for(lambda s: "Search for themes" in s, "the theme picker")
