"""Saving the default model into config.toml in place: comments, other keys and tables kept;
bad TOML and unwritable files refused with one line, the file unchanged."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest

from agent.config import ConfigError, load_config
from agent.config_file import save_model

USER_FILE = """\
# my pleat settings
model = "openai/gpt-4o"  # the usual one
thinking = "high"

# folding earlier than the default
[compaction]
threshold = 0.7  # keep this
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_model_is_replaced_in_place_and_everything_else_kept(pleat_home: Path) -> None:
    path = write(pleat_home / "config.toml", USER_FILE)
    line = save_model(path, "anthropic/claude-sonnet-4-5", None)
    assert line == f'saved model = "anthropic/claude-sonnet-4-5" to {path}'
    assert path.read_text() == USER_FILE.replace("openai/gpt-4o", "anthropic/claude-sonnet-4-5")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config = load_config({}, environ={})
    assert config.model == "anthropic/claude-sonnet-4-5" and config.compaction.threshold == 0.7


def test_a_missing_key_is_added_before_the_tables(pleat_home: Path) -> None:
    text = USER_FILE.replace('model = "openai/gpt-4o"  # the usual one\n', "")
    path = write(pleat_home / "config.toml", text)
    save_model(path, "openai/qwen", "http://localhost:1234/v1")
    lines = path.read_text().splitlines()
    assert lines[:4] == [
        "# my pleat settings",
        'thinking = "high"',
        'model = "openai/qwen"',
        'api_base = "http://localhost:1234/v1"',
    ]
    assert lines[4:] == text.splitlines()[2:]  # the blank line, the table's comment, the table
    data = tomllib.loads(path.read_text())
    assert data["compaction"] == {"threshold": 0.7} and "model" not in data["compaction"]


def test_a_new_file_is_made_owner_only(pleat_home: Path) -> None:
    path = pleat_home / "nested" / "config.toml"
    save_model(path, "ollama_chat/llama3:8b", "http://localhost:11434")
    assert path.read_text() == (
        'model = "ollama_chat/llama3:8b"\napi_base = "http://localhost:11434"\n'
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_file_of_tables_only_gets_the_key_on_top(pleat_home: Path) -> None:
    path = write(pleat_home / "config.toml", "[compaction]\nthreshold = 0.6")
    save_model(path, "m/one", None)
    assert path.read_text() == 'model = "m/one"\n\n[compaction]\nthreshold = 0.6'


def test_another_server_s_api_base_is_removed_and_said(pleat_home: Path) -> None:
    text = 'model = "openai/qwen"\napi_base = "http://localhost:1234/v1"  # LM Studio\nx_y = 1\n'
    path = write(pleat_home / "config.toml", text.replace("x_y = 1\n", "max_retries = 1\n"))
    line = save_model(path, "anthropic/claude-sonnet-4-5", None)
    assert 'removed api_base = "http://localhost:1234/v1"' in line
    assert path.read_text() == 'model = "anthropic/claude-sonnet-4-5"\nmax_retries = 1\n'
    line = save_model(path, "openai/qwen", "http://localhost:8000/v1")
    assert "removed" not in line
    assert tomllib.loads(path.read_text())["api_base"] == "http://localhost:8000/v1"


def test_quoted_keys_crlf_and_odd_names_survive(pleat_home: Path) -> None:
    path = pleat_home / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\"model\" = 'old'\r\nmax_retries = 2\r\n")
    save_model(path, 'we"ird\\name', None)
    assert path.read_bytes() == b'"model" = "we\\"ird\\\\name"\r\nmax_retries = 2\r\n'
    assert tomllib.loads(path.read_text())["model"] == 'we"ird\\name'


@pytest.mark.parametrize(
    "text",
    ["model = \n", 'model = "a"\nmodel = "b"\n', "[compaction\n"],
    ids=["no-value", "duplicate-key", "bad-table"],
)
def test_a_config_that_does_not_parse_is_not_written(pleat_home: Path, text: str) -> None:
    path = write(pleat_home / "config.toml", text)
    with pytest.raises(ConfigError) as info:
        save_model(path, "m/one", None)
    message = str(info.value)
    assert "not valid TOML" in message and "not changed" in message and "\n" not in message
    assert path.read_text() == text


def test_a_value_pleat_cannot_edit_in_place_is_refused(pleat_home: Path) -> None:
    text = 'model = """\nopenai/gpt-4o"""\n'
    path = write(pleat_home / "config.toml", text)
    with pytest.raises(ConfigError, match="cannot edit"):
        save_model(path, "m/one", None)
    assert path.read_text() == text


def test_a_config_path_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    blocker = write(tmp_path / "not-a-directory", "a file where a directory should be")
    with pytest.raises(ConfigError) as info:
        save_model(blocker / "config.toml", "m/one", None)
    assert str(info.value).startswith("cannot write") and "\n" not in str(info.value)
    assert blocker.read_text() == "a file where a directory should be"


def test_a_symlinked_config_is_edited_where_it_points(pleat_home: Path, tmp_path: Path) -> None:
    real = write(tmp_path / "dotfiles" / "pleat.toml", USER_FILE)
    link = pleat_home / "config.toml"
    pleat_home.mkdir()
    link.symlink_to(real)
    save_model(link, "m/one", None)
    assert link.is_symlink()
    assert tomllib.loads(real.read_text())["model"] == "m/one"
