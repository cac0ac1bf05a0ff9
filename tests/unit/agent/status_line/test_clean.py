"""The status line's first line: colours (SGR) kept, every other escape and control removed."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from agent.status_line.clean import MAX_LINE_CHARS, clean, first_line

SGR = re.compile(r"\x1b\[[0-9;:]*m")


def test_colours_are_kept_as_they_were_written() -> None:
    line = "\x1b[1;32mok\x1b[0m \x1b[38;2;10;20;30mtrue\x1b[m \x1b[38;5;208morange\x1b[39m"
    assert clean(line) == line


def test_clipboard_title_and_link_strings_are_removed_whole() -> None:
    assert clean("a\x1b]52;c;cHduZWQ=\x07b") == "ab"  # OSC 52 ended by BEL
    assert clean("a\x1b]0;new title\x1b\\b") == "ab"  # OSC 0 ended by ST
    assert clean("\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\") == "link"
    assert clean("a\x1bPq#0;2;0;0;0\x1b\\b") == "ab"  # DCS (sixel)
    assert clean("a\x1b]52;c;unterminated") == "a"  # to the end of the line


def test_cursor_moves_erasing_and_modes_are_removed() -> None:
    moved = "a\x1b[5;5Hb\x1b[2Jc\x1b[2Kd\x1b[?25le\x1b[3Af\x1b7g\x1b8h\x1b(Bi\x1bcj"
    assert clean(moved) == "abcdefghij"


def test_control_characters_and_their_eight_bit_forms_are_removed() -> None:
    assert clean("bell\x07 back\x08 cr\r del\x7f nul\x00") == "bell back cr del nul"
    assert clean("a\x9b2Jb\x9d0;title\x9cc") == "abc"  # C1 CSI and OSC
    assert clean("evil\u202etxt.exe") == "eviltxt.exe"  # a bidirectional override


def test_a_sequence_cut_short_at_the_end_leaves_nothing_behind() -> None:
    assert clean("ok\x1b[38;5") == "ok"
    assert clean("ok\x1b") == "ok"


def test_only_the_first_line_and_no_more_than_the_limit() -> None:
    assert first_line("\x1b[32mone\x1b[0m\ttwo\r\nthree\n") == "\x1b[32mone\x1b[0m two"
    assert first_line("") == ""
    assert len(first_line("x" * (MAX_LINE_CHARS * 5) + "\nmore")) == MAX_LINE_CHARS


@given(st.text(alphabet=st.sampled_from(list("\x1b[]0123456789;:mHJ?P\\\x07\x9b\x9dab\x00\t\n"))))
def test_whatever_is_printed_only_colours_remain(text: str) -> None:
    line = first_line(text)
    assert not re.search(r"[\x00-\x1f\x7f-\x9f]", SGR.sub("", line))
