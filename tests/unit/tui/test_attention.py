"""What pleat sends the terminal to call you back: the bell, an OSC 9 notification whose text is
one short line with no control character from the model, or nothing."""

from __future__ import annotations

from tui.attention import BEL, MAX_NOTICE_CHARS, notice_text, terminal_signal


def test_each_setting_sends_its_signal() -> None:
    assert terminal_signal("bell", "pleat: done") == BEL
    assert terminal_signal("osc9", "pleat: done") == "\x1b]9;pleat: done\a"
    assert terminal_signal("off", "pleat: done") == ""


def test_the_notifications_text_holds_no_control_character_and_is_one_short_line() -> None:
    hostile = "done\x1b]52;c;cHduZWQ=\x07\nnext line\x9b31m\u202eevil\r" + "x" * 500
    text = notice_text(hostile)
    assert not any(ord(c) < 32 or 127 <= ord(c) < 160 or c == "\u202e" for c in text)
    assert text.startswith("done\\x1b]52;c;cHduZWQ=\\x07 next line")
    assert len(text) == MAX_NOTICE_CHARS and text.endswith("…")
    signal = terminal_signal("osc9", hostile)
    assert signal.count("\x1b") == 1 and signal.count("\a") == 1 and signal.endswith("\a")
