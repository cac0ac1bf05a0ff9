"""config.toml's editor_mode and [keys] (agent/config.py reads them, tui/keymap.py checks each
[keys] line): good lines bound, each bad one a line of its own while the rest load, the help
showing the keys as rebound; and the theme remembered in the data directory (tui/themes.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.config import ConfigError, load_config
from tui.keymap import keymap
from tui.keys import KEYS, key_help
from tui.themes import MAX_STATE_BYTES, remember, remembered, state_path

CONFIG = """\
editor_mode = "vim"

[keys]
edit_prompt = "ctrl+t"
cycle_mode = ["f2", "Ctrl+N"]
page_up = "ctrl+/"
no_such_thing = "ctrl+x"
quit = "x"
interrupt = 3
rewind = "ctrl+banana"
background_command = "ctrl+g"
"""


def test_keys_table_binds_the_good_lines_and_names_each_bad_one(pleat_home: Path) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text(CONFIG)
    config = load_config({}, environ={})
    assert config.editor_mode == "vim"
    bound, problems = keymap(config.keys)
    assert bound == {
        "edit_prompt": "ctrl+t",
        "cycle_mode": "f2,ctrl+n",
        "page_up": "ctrl+slash",
        "background_command": "ctrl+g",  # Ctrl+G is free: edit_prompt moved to Ctrl+T
    }
    not_a_name, typing, not_a_string, not_a_key = problems  # in the file's order
    assert "[keys] no_such_thing: no key of that name (names: interrupt," in not_a_name
    assert "[keys] quit = 'x': it types a character in the prompt" in typing
    assert "[keys] interrupt must be a key" in not_a_string and "got 3" in not_a_string
    assert "banana is not a key Textual knows" in not_a_key


def test_a_key_taken_from_another_binding_is_said() -> None:
    bound, problems = keymap([("edit_prompt", "ctrl+b")])
    assert bound == {"edit_prompt": "ctrl+b"}
    assert problems == ["[keys] edit_prompt takes ctrl+b from background_command"]


@pytest.mark.parametrize(
    ("name", "key", "why"),
    [
        ("edit_prompt", "ctrl+e", "the prompt uses ctrl+e itself"),  # its cursor to the line end
        ("quit", "enter", "the prompt uses enter itself"),  # bound first: Enter would quit
        ("command_palette", "escape", "the prompt uses escape itself"),
        ("page_up", "f5,up", "the prompt uses up itself"),
    ],
)
def test_a_key_the_prompt_uses_is_refused(name: str, key: str, why: str) -> None:
    bound, problems = keymap([(name, key)])
    assert bound == {}
    assert len(problems) == 1 and why in problems[0] and "not rebound" in problems[0]


def test_a_name_may_keep_its_default_among_the_prompts_keys() -> None:
    bound, problems = keymap([("interrupt", "escape,f3"), ("page_up", "pageup")])
    assert bound == {"interrupt": "escape,f3", "page_up": "pageup"} and problems == []


def test_two_names_on_one_key_bind_the_first_only() -> None:
    bound, problems = keymap([("edit_prompt", "f2"), ("background_command", "ctrl+t,F2")])
    assert bound == {"edit_prompt": "f2"}
    assert problems == [
        "[keys] background_command = 'ctrl+t,F2': f2 is already edit_prompt's; not rebound"
    ]


def test_help_shows_the_rebound_key_and_each_name() -> None:
    shown = key_help({"edit_prompt": "ctrl+e,f2"})
    assert "| Ctrl+E, F2 | edit the prompt in $VISUAL or $EDITOR | `edit_prompt` |" in shown
    assert "| Ctrl+G |" not in shown
    names = [key.binding.name for key in KEYS if key.binding is not None]
    assert all(f"`{name}`" in shown for name in names)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('keys = "ctrl+e"\n', "keys must be a table"),
        ('editor_mode = "emacs"\n', "editor_mode must be normal or vim"),
    ],
)
def test_a_bad_keys_table_or_editor_mode_is_one_line(
    pleat_home: Path, text: str, needle: str
) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text(text)
    with pytest.raises(ConfigError, match=needle):
        load_config({}, environ={})


def test_keys_come_from_the_config_file_only() -> None:
    with pytest.raises(ConfigError, match=r"keys are set in .* only"):
        load_config({}, environ={"PLEAT_KEYS": "quit=ctrl+x"})


def test_the_theme_is_remembered_and_a_damaged_file_is_no_theme(pleat_home: Path) -> None:
    assert remembered() is None
    remember("textual-light")
    assert state_path().parent == pleat_home and remembered() == "textual-light"
    for damaged in (b"{not json", b'{"theme": 7}', b"\xff\xfe", b" " * (MAX_STATE_BYTES + 1)):
        state_path().write_bytes(damaged)
        assert remembered() is None


def test_a_pipe_or_a_directory_in_place_of_the_theme_file_is_no_theme(pleat_home: Path) -> None:
    pleat_home.mkdir(parents=True, exist_ok=True)
    os.mkfifo(state_path())  # nobody writes it: opening it must not wait for a writer
    assert remembered() is None
    state_path().unlink()
    state_path().mkdir()
    assert remembered() is None
