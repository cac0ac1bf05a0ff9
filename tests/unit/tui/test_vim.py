"""The prompt's vim keys as a state machine over a text and a cursor (tui/vim.py), fed as the
prompt feeds it: normal mode's motions, operators and counts, insert mode left to the prompt, one
undo step per change, and the keys it leaves to the app (Esc with nothing pending, arrows)."""

from __future__ import annotations

import re

import pytest

from tui.vim import Vim

# A key in a sequence written as vim's documentation writes it: <Esc>, <CR>, <C-r>, <Left>.
NAMED = {"<Esc>": "escape", "<CR>": "enter", "<C-r>": "ctrl+r", "<Left>": "left"}


class Prompt:
    """A text, a cursor and a Vim, fed keys the way the prompt widget does: what insert mode
    leaves alone is typed into the text."""

    def __init__(self, marked: str, *, normal: bool = False) -> None:
        self.cursor = marked.index("|")
        self.text = marked.replace("|", "", 1)
        self.vim = Vim(self.text, self.cursor)
        if normal:
            self.vim.mode = "normal"
        self.submitted = False
        self.handled: list[bool] = []

    def keys(self, sequence: str) -> Prompt:
        for key in re.findall(r"<[^>]+>|.", sequence, flags=re.DOTALL):
            name = NAMED.get(key, key)
            outcome = self.vim.feed(name, self.text, self.cursor)
            self.handled.append(outcome.handled)
            self.text, self.cursor = outcome.text, outcome.cursor
            self.submitted |= outcome.submit
            if not outcome.handled and self.vim.mode == "insert" and len(name) == 1:
                self.text = self.text[: self.cursor] + name + self.text[self.cursor :]
                self.cursor += 1
        return self

    @property
    def marked(self) -> str:
        return self.text[: self.cursor] + "|" + self.text[self.cursor :]


def test_the_issue_sequence_edits_as_vim_does() -> None:
    """Typed text, Esc, 0, dw, i, more text, Esc, u: the insert is undone in one step, the
    delete by the next u, and Ctrl+R does the delete again."""
    prompt = Prompt("|").keys("hello world<Esc>")
    assert prompt.vim.mode == "normal" and prompt.marked == "hello worl|d"
    prompt.keys("0dw")
    assert prompt.marked == "|world"
    prompt.keys("ibig <Esc>")
    assert prompt.marked == "big| world"
    prompt.keys("u")
    assert prompt.text == "world"
    prompt.keys("u")
    assert prompt.text == "hello world"
    prompt.keys("<C-r>")
    assert prompt.text == "world"
    assert prompt.vim.mode == "normal"


@pytest.mark.parametrize(
    ("start", "keys", "end"),
    [
        ("|one two three", "w", "one |two three"),
        ("|one two three", "2w", "one two |three"),
        ("one two |three", "b", "one |two three"),
        ("|one two three", "e", "on|e two three"),
        ("|one two three", "3e", "one two thre|e"),
        ("|foo.bar baz", "w", "foo|.bar baz"),  # punctuation is a word of its own
        ("one t|wo", "0", "|one two"),
        ("|one two", "$", "one tw|o"),
        ("   |x  y", "0^", "   |x  y"),
        ("|ab\ncd\nef", "G", "ab\ncd\n|ef"),
        ("ab\ncd\ne|f", "gg", "|ab\ncd\nef"),
        ("|ab\ncd\nef", "2G", "ab\n|cd\nef"),
        ("a|bc\nd\nefg", "jj", "abc\nd\ne|fg"),  # a short line on the way: its end
        ("abc\nd\nef|g", "k", "abc\n|d\nefg"),
        ("|abc", "lllll", "ab|c"),  # l stops at the line's last character
        ("abc\n|", "k$", "ab|c\n"),
        ("|ab\nabcdef", "$j", "ab\nabcde|f"),  # after $, j and k keep to the line's end
        ("a|b  ", "e", "ab | "),  # no word ends after: the text's last character
        ("ab\n|", "e", "ab\n|"),  # never backwards
        ("l1\n|l2", "2$", "l1\n|l2"),  # no line below: no move
    ],
)
def test_motions_and_counts(start: str, keys: str, end: str) -> None:
    assert Prompt(start, normal=True).keys(keys).marked == end


@pytest.mark.parametrize(
    ("start", "keys", "end"),
    [
        ("one |two three", "dw", "one |three"),
        ("|one two three four", "d2w", "|three four"),
        ("|a b c d e f g", "2d3w", "|g"),
        ("one |two\nnext", "dw", "one| \nnext"),  # the line's last word: not the line break
        ("one |two three", "cwTWO<Esc>", "one TW|O three"),  # cw stops at the word's end
        ("one |two three", "c$end<Esc>", "one en|d"),
        ("one |two three", "D", "one| "),
        ("|abcdef", "3x", "|def"),
        ("abc|def", "X", "ab|def"),
        ("|l1\nl2\nl3", "dd", "|l2\nl3"),
        ("|l1\nl2\nl3", "2dd", "|l3"),
        ("l1\nl2\n|l3", "dd", "l1\n|l2"),  # the last line: the break before it goes
        ("l1\n|l2\nl3", "dj", "|l1"),
        ("l1\n|l2\nl3", "dgg", "|l3"),
        ("|l1\nl2", "yyp", "l1\n|l1\nl2"),
        ("|l1\nl2", "yy2P", "|l1\nl1\nl1\nl2"),
        ("|ab cd", "ywP", "ab| ab cd"),
        ("|ab cd", "xp", "b|a cd"),
        ("|x", "ccnew<Esc>", "ne|w"),
        ("ab|c", "Ad<Esc>", "abc|d"),
        ("  ab|c", "I-<Esc>", "  |-abc"),
        ("a|b", "onext<Esc>", "ab\nnex|t"),
        ("a|b", "Oup<Esc>", "u|p\nab"),
        ("a|b", "aX<Esc>", "ab|X"),
        # Each as vim 9 does it (checked against it): an exclusive motion that ends at a line's
        # start stops at the line before's end, whole lines when only blanks precede it; d over
        # lines with nothing else on them takes whole lines; no line to go to: nothing done.
        ("a\n|\nb", "dw", "a\n|b"),
        ("|ab\n\ncd", "d2w", "|cd"),
        ("x ab\n|cd", "db", "x| \ncd"),
        ("  ab\n|cd", "db", "|cd"),
        ("x ab\n|cd  \nef", "d2w", "|x ab"),
        ("c-- |abc", "dk", "c-- |abc"),
        ("l1\n|l2", "dj", "l1\n|l2"),
        ("c| z", "3dd", "c| z"),
        ("_cc|czb\n- ", "2D", "_c|c"),
        ("a |b\ncd\nef", "2CZ<Esc>", "a |Z\nef"),
        ("|_ ", "3aZ<Esc>", "_ZZ|Z "),  # a count repeats what insert mode typed
        ("a|b", "3iab<Esc>", "aababa|bb"),
        ("x|y\nz", "3oZ<Esc>", "xy\nZ\nZ\n|Z\nz"),  # o and O: on as many new lines
        ("|-\nxb", "2OZ<Esc>", "Z\n|Z\n-\nxb"),
        ("\n|  \ncy", "IZ<Esc>", "\n  |Z\ncy"),  # I on a blank line: after the blanks
    ],
)
def test_operators_and_commands(start: str, keys: str, end: str) -> None:
    assert Prompt(start, normal=True).keys(keys).marked == end


def test_undo_is_one_step_per_change_and_redo_follows() -> None:
    prompt = Prompt("|one two three", normal=True).keys("dwdw")
    assert prompt.text == "three"
    prompt.keys("u")
    assert prompt.text == "two three"
    prompt.keys("2u")
    assert prompt.text == "one two three"
    prompt.keys("u")  # nothing left: nothing changes
    assert prompt.text == "one two three"
    prompt.keys("<C-r><C-r>")
    assert prompt.text == "three"
    prompt.keys("x<C-r>")  # a new change drops what could be redone
    assert prompt.text == "hree"


def test_an_insert_without_typing_is_no_undo_step() -> None:
    prompt = Prompt("|ab", normal=True).keys("xi<Esc>u")
    assert prompt.text == "ab"


def test_the_keys_left_to_the_app_and_the_prompt() -> None:
    """Esc in an empty prompt (insert) and Esc with nothing pending (normal) go on to the app
    (interrupt, Esc Esc rewind); Esc with an operator pending cancels it; arrows go to the
    prompt; a character that is no command types nothing; Enter submits."""
    prompt = Prompt("|")
    prompt.keys("<Esc>")
    assert prompt.vim.mode == "normal" and prompt.handled == [False]
    prompt = Prompt("a|b", normal=True).keys("d")
    assert prompt.vim.pending == "d"
    prompt.keys("<Esc>")
    assert prompt.handled[-1] and prompt.vim.pending == ""
    prompt.keys("<Esc>")
    assert not prompt.handled[-1]
    prompt.keys("<Left>")
    assert not prompt.handled[-1]
    prompt.keys("Z!")
    assert prompt.text == "ab" and all(prompt.handled[-2:])
    prompt.keys("<CR>")
    assert prompt.submitted and prompt.text == "ab"


def test_counts_are_bounded_and_forget_resets() -> None:
    prompt = Prompt("|l1\nl2", normal=True).keys("99999999dd")
    assert prompt.text == ""
    prompt.vim.forget("new", 3, "insert")
    assert prompt.vim.mode == "insert" and not prompt.vim.undos


# Random key sequences run over random texts: enough that every key meets empty lines, the
# text's ends and pending counts and operators, in a fraction of a second.
RANDOM_RUNS, RANDOM_KEYS = 300, 60


def test_any_key_sequence_keeps_the_cursor_in_the_text() -> None:
    import random

    keys = [*"hjklwbe0^$GgdcyxXDCpPuiaIAoO23", "<Esc>", "<CR>", "<C-r>", "<Left>"]
    for seed in range(RANDOM_RUNS):
        draw = random.Random(seed)  # fixed seeds: the same sequences on every run
        text = "".join(draw.choice("ab c\n_.-  \n") for _ in range(draw.randint(0, 30)))
        at = draw.randint(0, len(text))
        prompt = Prompt(f"{text[:at]}|{text[at:]}", normal=draw.random() < 0.5)
        prompt.keys("".join(draw.choice(keys) for _ in range(RANDOM_KEYS)))
        assert 0 <= prompt.cursor <= len(prompt.text), seed
