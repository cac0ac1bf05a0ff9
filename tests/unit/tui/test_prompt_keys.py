"""Esc Esc's double press, by a clock the test moves: two presses within the window make a pair,
one outside it starts anew, a pair is not the first of the next one."""

from __future__ import annotations

from tui.prompt_keys import DOUBLE_ESCAPE_SECONDS, DoublePress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_two_presses_within_the_window_make_a_pair() -> None:
    clock = Clock()
    presses = DoublePress(clock)
    assert not presses.press()
    clock.now += DOUBLE_ESCAPE_SECONDS  # at the edge: still the second of the pair
    assert presses.press()
    assert not presses.press()  # a third press starts a new pair


def test_a_late_second_press_or_another_key_between_starts_anew() -> None:
    clock = Clock()
    presses = DoublePress(clock)
    assert not presses.press()
    clock.now += DOUBLE_ESCAPE_SECONDS + 0.01
    assert not presses.press()  # too late: it is the first of a new pair
    presses.forget()
    clock.now += 0.1
    assert not presses.press()
    clock.now += 0.1
    assert presses.press()
