"""The [lsp] settings read strictly, and which server a file's language gets (config.toml's
command, else a well-known one found on PATH)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent.config import ConfigError, load_config
from tools.lsp.languages import language_of, server_command
from tools.lsp.manager import LanguageServers
from tools.lsp.settings import LanguageSetting, LspSettings, LspSettingsError, parse_lsp


def test_the_table_gives_commands_extensions_and_waits() -> None:
    settings = parse_lsp(
        {
            "diagnostics_seconds": 5,
            "python": {"command": ["pylsp", "-v"]},
            "zig": {"command": ["zls"], "extensions": [".ZIG"]},
            "go": {"enabled": False},
        }
    )
    assert settings.enabled and settings.diagnostics_seconds == 5.0
    assert settings.language("python") == LanguageSetting("python", ("pylsp", "-v"))
    assert language_of(Path("src/a.zig"), settings).name == "zig"  # type: ignore[union-attr]
    assert server_command("go", settings) is None  # turned off: no server looked for
    assert language_of(Path("notes.md"), settings) is None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("maybe", "lsp must be true or false"),
        ({"start_seconds": 0}, "lsp.start_seconds must be between 0 and 60"),
        ({"python": {"command": "pylsp"}}, "lsp.python.command must be a list of strings"),
        ({"python": {"cmd": ["pylsp"]}}, "lsp.python: unknown key 'cmd'"),
        ({"zig": {"extensions": ["zig"]}}, "lsp.zig.extensions: 'zig' is not like"),
        ({"python": ["pylsp"]}, "lsp.python must be a table"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it(value: object, said: str) -> None:
    with pytest.raises(LspSettingsError, match=said.replace(".", r"\.")):
        parse_lsp(value)


def test_config_file_and_environment(pleat_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pleat_home.mkdir(parents=True)
    (pleat_home / "config.toml").write_text('[lsp.python]\ncommand = ["pylsp"]\n')
    monkeypatch.delenv("PLEAT_LSP")
    assert load_config().lsp == LspSettings(languages=(LanguageSetting("python", ("pylsp",)),))
    monkeypatch.setenv("PLEAT_LSP", "off")  # the environment's switch turns them off
    assert load_config().lsp == LspSettings(enabled=False)
    (pleat_home / "config.toml").write_text("[lsp]\nstart_seconds = -1\n")
    monkeypatch.delenv("PLEAT_LSP")
    with pytest.raises(ConfigError, match=r"config\.toml: lsp\.start_seconds must be between"):
        load_config()


def _program(directory: Path, name: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_well_known_server_found_first_on_path_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    none = server_command("python", LspSettings())
    assert none is not None and not none.argv
    assert (
        none.missing
        == "none of pyright-langserver, basedpyright-langserver, pylsp, ruff is on PATH"
    )
    ruff = _program(tmp_path, "ruff")
    assert server_command("python", LspSettings()).argv == (str(ruff), "server")  # type: ignore[union-attr]
    pylsp = _program(tmp_path, "pylsp")  # ahead of ruff: it answers definitions too
    assert server_command("python", LspSettings()).argv == (str(pylsp),)  # type: ignore[union-attr]
    configured = LspSettings(languages=(LanguageSetting("python", ("my-server", "--stdio")),))
    assert server_command("python", configured).missing == "my-server not found"  # type: ignore[union-attr]
    assert os.environ["PATH"] == str(tmp_path)


def test_a_server_planted_in_the_workspace_is_not_found_through_a_relative_path_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, trusted = tmp_path / "repo", tmp_path / "bin"
    (workspace / "bin").mkdir(parents=True)
    trusted.mkdir()
    _program(workspace, "pyright-langserver")  # a hostile repository's, at its top
    _program(workspace / "bin", "pylsp")
    ruff = _program(trusted, "ruff")
    monkeypatch.chdir(workspace)  # pleat runs in the workspace: "." and "bin" are the repo's
    monkeypatch.setenv("PATH", os.pathsep.join([".", "", "bin", str(trusted)]))
    assert server_command("python", LspSettings()).argv == (str(ruff), "server")  # type: ignore[union-attr]
    configured = LspSettings(languages=(LanguageSetting("python", ("pylsp",)),))
    assert server_command("python", configured).missing == "pylsp not found"  # type: ignore[union-attr]


def test_the_lsp_tool_is_offered_where_a_server_is_configured_or_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def has_servers(settings: LspSettings) -> bool:
        return LanguageServers(tmp_path, settings, None).offered()

    monkeypatch.setenv("PATH", str(tmp_path))
    assert not has_servers(LspSettings())  # nothing on PATH: no tool riding in every request
    configured = LspSettings(languages=(LanguageSetting("python", ("my-server",)),))
    assert has_servers(configured)  # its absence is then said in one line, at the first edit
    _program(tmp_path, "gopls")
    assert has_servers(LspSettings())
    assert not has_servers(LspSettings(enabled=False))
