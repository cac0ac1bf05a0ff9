"""`!` lines and Ctrl+G as a person types them: pleat in a terminal (a private tmux server)
against the scripted server, which records every request. `!echo hi` shows `hi` with no model call
and the next request carries the command and its output; Ctrl+G hands the terminal to $EDITOR
and the text it saved comes back into the prompt."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tmux_pleat import TmuxPleat, tmux_available

pytestmark = [
    pytest.mark.slow,  # a real pleat process in a real terminal
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

# A screen line holding only `hi` (inside the block's frame): the command's output, not the
# block's title `! echo hi`.
OUTPUT_LINE = re.compile(r"^[\s│┃▎▏|]*hi[\s│┃▎▏|]*$", re.MULTILINE)


def test_a_bang_line_shows_its_output_and_joins_the_next_request(workspace: Path) -> None:
    with ScriptedServer() as server, TmuxPleat(workspace, server) as tui:
        server.push(Text("it printed hi"))
        tui.wait_for(lambda s: "Ask pleat" in s, "the prompt")
        tui.send("!echo hi")
        tui.wait_for(lambda s: OUTPUT_LINE.search(s) is not None, "the command's output")
        assert server.requests == []  # no model call for the `!` line
        tui.send("what did it print?")
        tui.wait_for(lambda s: "it printed hi" in s, "the answer")
        tui.keys("C-q")
        tui.wait_for(lambda _: not tui.running(), "pleat to quit")
    [request] = server.requests
    last = request.messages[-1]
    assert last["role"] == "user"
    assert "<bash-input>echo hi</bash-input>" in last["content"]
    assert "<bash-stdout>hi\n" in last["content"]
    assert last["content"].endswith("what did it print?")


def test_ctrl_g_puts_the_text_the_editor_saved_in_the_prompt(
    workspace: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.txt"
    editor = tmp_path / "editor.sh"
    editor.write_text(f'#!/bin/sh\ncp "$1" {seen}\nprintf "rewritten by the editor\\n" > "$1"\n')
    editor.chmod(0o700)
    environment = {"EDITOR": str(editor), "VISUAL": ""}
    with ScriptedServer() as server, TmuxPleat(workspace, server, env=environment) as tui:
        server.push(Text("got it"))
        tui.wait_for(lambda s: "Ask pleat" in s, "the prompt")
        tui.type("my draft")
        tui.wait_for(lambda s: "my draft" in s, "the draft in the prompt")
        tui.keys("C-g")
        tui.wait_for(lambda s: "rewritten by the editor" in s, "the edited text in the prompt")
        assert "my draft" not in tui.screen()
        tui.keys("Enter")
        tui.wait_for(lambda s: "got it" in s, "the answer")
        tui.keys("C-q")
        tui.wait_for(lambda _: not tui.running(), "pleat to quit")
    assert seen.read_text() == "my draft"  # the editor was given the prompt as it was
    [request] = server.requests
    assert request.messages[-1] == {"role": "user", "content": "rewritten by the editor"}
