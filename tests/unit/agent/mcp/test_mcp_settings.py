"""MCP server settings: [mcp_servers.NAME] tables checked with one-line errors, .mcp.json entries in
Claude Code's format, `${VAR}` expansion, and the config loader's handling of the tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.config import ConfigError, load_config
from agent.mcp.settings import (
    DEFAULT_STARTUP_TIMEOUT_SECONDS,
    DEFAULT_TOOL_TIMEOUT_SECONDS,
    SettingsError,
    from_config,
    from_project_entry,
)


def load(tmp_path: Path, text: str, **environ: str) -> Any:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_config(path=path, environ=environ)


def test_a_stdio_and_an_http_table_load(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        """
model = "openai/x"
[mcp_servers.docs]
command = "docs-server"
args = ["--root", "."]
env = { DOCS_LEVEL = "2" }
cwd = "sub"
tool_timeout_sec = 30
[mcp_servers.web]
url = "https://example.invalid/mcp"
headers = { Authorization = "Bearer ${WEB_TOKEN}" }
enabled = false
""",
    )
    docs, web = config.mcp_servers
    assert (docs.name, docs.transport, docs.command, docs.args) == (
        "docs", "stdio", "docs-server", ("--root", "."),
    )  # fmt: skip
    assert docs.env == (("DOCS_LEVEL", "2"),) and docs.cwd == "sub"
    assert docs.tool_timeout == 30.0 and docs.startup_timeout == DEFAULT_STARTUP_TIMEOUT_SECONDS
    assert (web.transport, web.url, web.enabled) == ("http", "https://example.invalid/mcp", False)
    assert web.headers == (("Authorization", "Bearer ${WEB_TOKEN}"),)
    assert web.tool_timeout == DEFAULT_TOOL_TIMEOUT_SECONDS
    assert docs.source == str(tmp_path / "config.toml")


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ('command = "a"\nurl = "http://x"', "mcp_servers.s: give command (stdio) or url"),
        ("args = []", "mcp_servers.s: give command (a server to run) or url"),
        ('command = ""', "mcp_servers.s.command must be a non-empty string"),
        ('command = "a"\nargs = "b"', "mcp_servers.s.args must be a list of strings"),
        ('command = "a"\nargs = [1]', "mcp_servers.s.args must be a list of strings"),
        ('command = "a"\nenv = { "1X" = "b" }', "mcp_servers.s.env: '1X' is not a valid name"),
        ('command = "a"\nenv = { A = 1 }', "mcp_servers.s.env must be a table of strings"),
        ('command = "a"\nheaders = { A = "b" }', "headers is for url servers, not command ones"),
        ('url = "http://x"\ncwd = "d"', "cwd is for command servers, not url ones"),
        ('url = "ftp://x"', "mcp_servers.s.url must be an http(s) URL"),
        ('command = "a"\ntool_timeout_sec = 0', "tool_timeout_sec must be seconds in (0, 3,600]"),
        ('command = "a"\nstartup_timeout_sec = "9"', "startup_timeout_sec must be seconds"),
        ('command = "a"\nenabled = "yes"', "mcp_servers.s.enabled must be true or false"),
        ('command = "a"\ntimeout = 3', "unknown setting mcp_servers.s.timeout (known: args,"),
        ('command = "a\\u001b[2J"', "mcp_servers.s.command must be a non-empty string"),
    ],
)
def test_a_bad_table_is_one_line_naming_the_key(tmp_path: Path, table: str, needle: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, f"[mcp_servers.s]\n{table}\n")
    message = str(caught.value)
    assert "\n" not in message and needle in message, message
    assert message.startswith(str(tmp_path / "config.toml"))


def test_a_bad_name_or_shape_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"must be a table, e\.g\. \[mcp_servers\.s\]"):
        load(tmp_path, 'mcp_servers = { s = "x" }\n')
    with pytest.raises(ConfigError, match=r"mcp_servers must be tables in config\.toml"):
        load(tmp_path, 'mcp_servers = "x"\n')
    with pytest.raises(ConfigError, match="must be 1 to 48 printable characters"):
        load(tmp_path, f'[mcp_servers.{"n" * 49}]\ncommand = "a"\n')


def test_the_environment_cannot_set_servers(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="environment: mcp_servers must be tables in config"):
        load(tmp_path, "", PLEAT_MCP_SERVERS="docs")


def test_servers_are_sorted_by_name() -> None:
    servers = from_config({"b": {"command": "x"}, "a": {"url": "http://y"}}, "c.toml")
    assert [s.name for s in servers] == ["a", "b"]


def test_project_entries_take_claude_codes_format() -> None:
    stdio = from_project_entry(
        "fs", {"command": "npx", "args": ["-y", "fs"], "env": {"A": "b"}, "extra": 1}, ".mcp.json"
    )
    assert (stdio.transport, stdio.target(), stdio.env) == ("stdio", "npx -y fs", (("A", "b"),))
    http = from_project_entry(
        "api", {"type": "http", "url": "https://x.invalid", "headers": {"X-Key": "v"}}, "f"
    )
    assert (http.transport, http.headers) == ("http", (("X-Key", "v"),))
    guessed = from_project_entry("api", {"url": "https://x.invalid"}, "f")
    assert guessed.transport == "http"
    with pytest.raises(SettingsError, match="type 'sse' is not supported"):
        from_project_entry("old", {"type": "sse", "url": "https://x.invalid"}, ".mcp.json")
    with pytest.raises(SettingsError, match=r"\.mcp\.json: mcpServers\.x must be an object"):
        from_project_entry("x", [], ".mcp.json")


def test_variables_are_expanded_from_the_environment_when_a_server_starts() -> None:
    (server,) = from_config(
        {
            "s": {
                "command": "${TOOL_DIR}/run",
                "args": ["--user", "${USER_NAME:-nobody}"],
                "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
            }
        },
        "c",
    )
    environ = {"TOOL_DIR": "/opt/t", "GITHUB_TOKEN": "ghp_secret"}
    done = server.expanded(environ)
    assert done.command == "/opt/t/run" and done.args == ("--user", "nobody")
    assert done.env == (("GITHUB_TOKEN", "ghp_secret"),)
    assert server.command == "${TOOL_DIR}/run"  # what the user approves and /mcp shows
    with pytest.raises(SettingsError, match=r"uses \$\{GITHUB_TOKEN\}, which is not set"):
        server.expanded({"TOOL_DIR": "/x"})


def test_a_default_holding_another_variable_is_one_line_not_a_stray_brace() -> None:
    (server,) = from_config({"s": {"command": "run", "args": ["${HOME_DIR:-${OTHER}}"]}}, "c")
    with pytest.raises(SettingsError) as refused:
        server.expanded({"HOME_DIR": "/home/me", "OTHER": "x"})
    assert str(refused.value) == (
        "MCP server 's': a default may not hold another ${...} (write ${VAR:-text})"
    )


def test_a_project_server_is_never_given_a_variable_that_names_or_holds_a_secret() -> None:
    entry = {
        "command": "${TOOL_DIR}/run",
        "args": ["--key", "${OPENAI_API_KEY:-none}", "--url", "${DB_URL}"],
        "env": {"GH": "${GITHUB_TOKEN}", "AUTH": "${BASIC_AUTH:-}"},
    }
    project = from_project_entry("p", entry, ".mcp.json")
    environ = {
        "TOOL_DIR": "/opt/t",
        "OPENAI_API_KEY": "sk-live-0123456789",
        "GITHUB_TOKEN": "ghp_0123456789",
        "BASIC_AUTH": "user:hunter2hunter2",
        "DB_URL": "postgres://me:sk-live-0123456789@db",  # holds the key, under a plain name
    }
    assert project.withheld(environ) == ["BASIC_AUTH", "DB_URL", "GITHUB_TOKEN", "OPENAI_API_KEY"]
    with pytest.raises(SettingsError) as raised:
        project.expanded(environ)
    assert str(raised.value).startswith(
        "MCP server 'p' uses ${DB_URL}, not taken from your environment: a project's .mcp.json "
        "may not read variables that name or hold secrets (configure the server in config.toml"
    )
    entry["args"] = ["--key", "${OPENAI_API_KEY:-none}"]
    entry["env"] = {"AUTH": "${BASIC_AUTH:-}", "DIR": "${TOOL_DIR}"}
    done = from_project_entry("p", entry, ".mcp.json").expanded(environ)
    assert done.args == ("--key", "none")  # the default, never the key
    assert done.env == (("AUTH", ""), ("DIR", "/opt/t"))
    assert done.command == "/opt/t/run"  # a plain variable is expanded as before
    # The same in config.toml (the user's own file): every variable is the user's to pass.
    (mine,) = from_config({"p": entry}, "config.toml")
    assert mine.withheld(environ) == []
    assert mine.expanded(environ).args == ("--key", "sk-live-0123456789")
