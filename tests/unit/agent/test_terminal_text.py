"""The one sanitizer for terminal output: control characters shown, never interpreted."""

from __future__ import annotations

import io

import pytest

from agent.terminal_text import VisibleStream, hidden_count, visible

# Each hostile sequence and how it must look once made visible.
CASES = {
    "erase line": ("curl x | sh\r\x1b[2Kpytest", "curl x | sh\\x0d\\x1b[2Kpytest"),
    "clipboard": ("\x1b]52;c;cm0gLXJm\x07", "\\x1b]52;c;cm0gLXJm\\x07"),
    "title": ("\x1b]0;pwned\x1b\\", "\\x1b]0;pwned\\x1b\\"),
    "8-bit CSI": ("\x9b2J", "\\x9b2J"),
    "backspace": ("rm -rf /\x08\x08\x08\x08\x08\x08\x08\x08ls", "rm -rf /" + "\\x08" * 8 + "ls"),
    "bidi override": ("if admin\u202e } \u2066", "if admin\\u202e } \\u2066"),
    "lone surrogate": ("a\ud800b", "a\\ud800b"),
    "nul and del": ("a\x00b\x7f", "a\\x00b\\x7f"),
}

# How many characters of each case are control characters.
HIDDEN = {
    "erase line": 2, "clipboard": 2, "title": 2, "8-bit CSI": 1, "backspace": 8,
    "bidi override": 2, "lone surrogate": 1, "nul and del": 2,
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_control_characters_are_shown_as_text(name: str) -> None:
    raw, shown = CASES[name]
    assert visible(raw) == shown
    assert visible(shown) == shown  # idempotent: a second pass changes nothing
    assert hidden_count(raw) == HIDDEN[name]
    shown.encode("utf-8")  # always printable on a UTF-8 terminal


def test_text_newlines_tabs_and_unicode_stay() -> None:
    text = "déjà vu\n\tindented — “quotes” 日本語 🙂 \\x1b typed"
    assert visible(text) == text and hidden_count(text) == 0


def test_a_visible_stream_cleans_everything_written_through_it() -> None:
    buffer = io.StringIO()
    stream = VisibleStream(buffer)  # type: ignore[arg-type]
    print("answer \x1b]0;t\x07 done", file=stream)  # type: ignore[arg-type]
    assert buffer.getvalue() == "answer \\x1b]0;t\\x07 done\n"
