"""config.toml's [status_line] table: read into the configuration, a bad one refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import ConfigError, load_config
from agent.status_line.spec import StatusLineSpec


def load(tmp_path: Path, text: str, environ: dict[str, str] | None = None) -> object:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_config(environ=environ or {}, path=path)


def test_the_table_is_the_configurations_status_line(tmp_path: Path) -> None:
    config = load(tmp_path, '[status_line]\ntype = "command"\ncommand = "~/sl.sh"\npadding = 2\n')
    assert config.status_line == StatusLineSpec("~/sl.sh", 2, None, str(tmp_path / "config.toml"))  # type: ignore[attr-defined]
    assert load(tmp_path, "").status_line is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('status_line = "~/sl.sh"\n', "status_line must be a table"),
        ('[status_line]\ntype = "prompt"\ncommand = "x"\n', 'status_line.type must be "command"'),
        ("[status_line]\npadding = 1\n", "status_line.command must be a command to run"),
        ('[status_line]\ncommand = "x"\npadding = 99\n', "status_line.padding must be an integer"),
        ('[status_line]\ncommand = "x"\nrefresh = 9\n', "status_line.refresh is not a key"),
    ],
)
def test_a_bad_table_is_one_line_naming_the_file(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert said in message and message.startswith(str(tmp_path / "config.toml"))
    assert "\n" not in message


def test_the_environment_cannot_set_a_command(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"status line is set in .* only"):
        load(tmp_path, "", {"PLEAT_STATUS_LINE": "rm -rf ~"})
