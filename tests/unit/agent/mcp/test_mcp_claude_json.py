"""~/.claude.json's MCP servers (what `claude mcp add` writes): both scopes, where the file is,
${VAR} expansion, the file read as hostile input, and the precedence of a name in several places."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from agent.mcp.claude_json import (
    MAX_CLAUDE_JSON_BYTES,
    claude_json_path,
    read_claude_json_servers,
)
from agent.mcp.settings import from_config, from_table
from agent.mcp.sources import gather_servers
from sessions.model_json import MAX_JSON_CHARS


@pytest.fixture
def claude_dir(tmp_path: Path) -> Path:
    """$CLAUDE_CONFIG_DIR of these tests (the conftest points the variable at it)."""
    path = Path(os.environ["CLAUDE_CONFIG_DIR"])
    path.mkdir(parents=True, exist_ok=True)
    return path


def write(claude_dir: Path, data: Any) -> Path:
    path = claude_dir / ".claude.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def state(workspace: Path, *, user: Any = None, local: Any = None, **project: Any) -> Any:
    """A state file as Claude Code writes it: other keys around the servers."""
    data: dict[str, Any] = {"numStartups": 41, "tipsHistory": {"x": 3}, "projects": {}}
    if user is not None:
        data["mcpServers"] = user
    entry: dict[str, Any] = {"allowedTools": [], "history": [{"display": "hi"}], **project}
    if local is not None:
        entry["mcpServers"] = local
    data["projects"][str(workspace.resolve())] = entry
    data["projects"]["/somewhere/else"] = {"mcpServers": {"other": {"command": "no"}}}
    return data


def test_the_user_and_local_scopes_are_read_and_named(workspace: Path, claude_dir: Path) -> None:
    write(
        claude_dir,
        state(
            workspace,
            user={"docs": {"type": "stdio", "command": "npx", "args": ["-y", "docs"], "env": {}}},
            local={"api": {"type": "http", "url": "https://x.invalid/mcp", "headers": {"A": "b"}}},
        ),
    )
    found = read_claude_json_servers(workspace)
    label = str(claude_dir / ".claude.json")
    assert found.problems == ()
    ((docs,), (api,)) = found.user, found.local
    assert (docs.name, docs.source, docs.target()) == ("docs", f"{label} (user)", "npx -y docs")
    assert (api.name, api.source, api.transport) == ("api", f"{label} (local)", "http")
    assert api.headers == (("A", "b"),)
    # The user's own: no approval, no variable withheld, confined as config.toml's by default.
    (table,) = from_config({"t": {"command": "x"}}, "config.toml")
    assert not docs.project and docs.sandboxed == table.sandboxed
    assert docs.withheld({"GITHUB_TOKEN": "ghp_0123456789abcdef"}) == []


def test_the_file_is_in_the_home_unless_claude_config_dir_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    assert claude_json_path({}) == home / ".claude.json"
    assert claude_json_path({"CLAUDE_CONFIG_DIR": "~/cc"}) == home / "cc" / ".claude.json"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"x": {"command": 5}}}))
    found = read_claude_json_servers(tmp_path, {})
    assert found.problems == (
        "~/.claude.json (user): mcpServers.x.command must be a non-empty string, got 5; that "
        "server is not used",
    )


def test_variables_expand_from_the_environment_with_defaults(
    workspace: Path, claude_dir: Path
) -> None:
    entry = {
        "command": "${TOOLS}/run",
        "args": ["--db", "${DB_URL:-sqlite:///x.db}"],
        "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
    }
    write(claude_dir, state(workspace, user={"gh": entry}))
    (server,) = read_claude_json_servers(workspace).user
    done = server.expanded({"TOOLS": "/opt", "GITHUB_TOKEN": "ghp_0123456789abcdef"})
    assert done.command == "/opt/run" and done.args == ("--db", "sqlite:///x.db")
    assert done.env == (("GITHUB_TOKEN", "ghp_0123456789abcdef"),)  # the user's own: given


def test_bad_entries_are_one_line_each_and_the_rest_work(workspace: Path, claude_dir: Path) -> None:
    write(
        claude_dir,
        state(
            workspace,
            user={
                "good": {"command": "ok"},
                "old": {"type": "sse", "url": "https://x.invalid/sse"},
                "nourl": {"type": "http", "headers": {"A": "b"}},
                "\x1b[31mred": {"command": "x"},
                "flag": {"command": "x", "sandbox": "yes"},
            },
            local={"fine": {"command": "ok2", "sandbox": True}, "nope": "a string"},
        ),
    )
    found = read_claude_json_servers(workspace)
    assert [s.name for s in found.user] == ["good"]
    assert [(s.name, s.sandboxed) for s in found.local] == [("fine", True)]
    label, key = str(claude_dir / ".claude.json"), json.dumps(str(workspace.resolve()))
    assert found.problems == (
        f"{label} (user): the server name '\\x1b[31mred' must be 1 to 48 printable characters "
        "(e.g. github, my-docs); that server is not used",
        f"{label} (user): mcpServers.flag.sandbox must be true or false, got 'yes'; that server "
        "is not used",
        f"{label} (user): mcpServers.nourl: give command (a server to run) or url (an HTTP "
        "server); that server is not used",
        f"{label} (user): mcpServers.old: type 'sse' is not supported (stdio or http; SSE "
        "servers usually also serve streamable HTTP); that server is not used",
        f"{label} (local): projects[{key}].mcpServers.nope must be an object; that server is "
        "not used",
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"mcpServers": {"a": ', "is not valid JSON (Expecting value at line 1 column 22)"),
        ("[" * 100 + "]" * 100, "is not valid JSON (nested more than 64 levels deep)"),
        ('{"n": ' + "9" * 5000 + "}", "is not valid JSON (an integer of 5,000 digits"),
        ("[1, 2]", "is not a JSON object; not used"),
        ('{"mcpServers": ["a"]}', "(user): mcpServers is not an object; not used"),
    ],
)
def test_a_bad_file_is_one_line(workspace: Path, claude_dir: Path, text: str, problem: str) -> None:
    write(claude_dir, text)
    found = read_claude_json_servers(workspace)
    assert (found.user, found.local) == ((), ())
    assert len(found.problems) == 1 and problem in found.problems[0], found.problems


def test_no_file_is_nothing_and_a_directory_or_fifo_is_one_line(
    workspace: Path, claude_dir: Path
) -> None:
    assert read_claude_json_servers(workspace) == read_claude_json_servers(workspace, {})
    path = claude_dir / ".claude.json"
    path.mkdir()
    (problem,) = read_claude_json_servers(workspace).problems
    assert problem == f"{path} is a directory, not a file; not read"
    path.rmdir()
    os.mkfifo(path)  # nobody writes it: opening must not block
    (problem,) = read_claude_json_servers(workspace).problems
    assert problem == f"{path} is a named pipe, not a file; not read"


def test_a_big_state_file_is_read_and_one_past_the_cap_is_one_line(
    workspace: Path, claude_dir: Path
) -> None:
    data = state(workspace, user={"docs": {"command": "docs"}})
    data["projects"]["/old"] = {"history": [{"display": "x" * 1000}] * 6000}  # Claude's history
    path = write(claude_dir, data)
    assert path.stat().st_size > MAX_JSON_CHARS  # past what a tool call's JSON may be
    assert [s.name for s in read_claude_json_servers(workspace).user] == ["docs"]
    with path.open("r+b") as grown:  # sparse: no disk is written
        grown.truncate(MAX_CLAUDE_JSON_BYTES + 1)
    found = read_claude_json_servers(workspace)
    assert found.user == () and found.problems == (
        f"{path} is over 64 MiB (Claude Code's history makes it grow); its MCP servers are not "
        "used: copy them into config.toml's [mcp_servers]",
    )


def test_the_workspace_is_found_by_its_resolved_path_and_disabled_servers_stay_off(
    tmp_path: Path, workspace: Path, claude_dir: Path
) -> None:
    link = tmp_path / "link"
    link.symlink_to(workspace)
    write(
        claude_dir,
        state(
            workspace,
            local={"a": {"command": "a"}, "b": {"command": "b"}},
            user={"c": {"command": "c"}},
            disabledMcpServers=["b", "c", 7],
        ),
    )
    found = read_claude_json_servers(link)
    assert [(s.name, s.enabled) for s in found.local] == [("a", True), ("b", False)]
    assert [(s.name, s.enabled) for s in found.user] == [("c", False)]


def test_a_name_in_several_places_is_taken_from_the_first(
    workspace: Path, claude_dir: Path
) -> None:
    """config.toml, then ~/.claude.json's local scope, then .mcp.json (once approved), then the
    user scope (Claude Code's order after pleat's own file)."""
    write(
        claude_dir,
        state(
            workspace,
            user={n: {"command": f"user-{n}"} for n in ("mine", "loc", "proj", "user")},
            local={n: {"command": f"local-{n}"} for n in ("mine", "loc")},
        ),
    )
    (workspace / ".mcp.json").write_text(
        json.dumps({"mcpServers": {n: {"command": f"project-{n}"} for n in ("loc", "proj")}})
    )
    configured = (from_table("mine", {"command": "toml-mine"}, "config.toml", "t"),)
    run = gather_servers(configured, workspace)
    assert [s.command for s in run.claude] == ["local-loc", "user-user"]
    assert [s.command for s in run.held] == ["user-proj"]  # .mcp.json's, once approved
    label = str(claude_dir / ".claude.json")
    assert run.hidden == (
        f"{label} (local): the MCP server mine is not used: config.toml's server of that name "
        "comes first",
        f"{label} (user): the MCP server loc is not used: {label} (local)'s server of that name "
        "comes first",
        f"{label} (user): the MCP server mine is not used: config.toml's server of that name "
        "comes first",
    )
    added, lines = run.project_servers(approved=True)
    assert [s.command for s in added] == ["project-proj"]
    assert lines == [
        f".mcp.json: the MCP server loc is not used: {label} (local)'s server of that name "
        "comes first",
        f"{label} (user): the MCP server proj is not used: .mcp.json's server of that name "
        "comes first",
    ]
    added, lines = run.project_servers(approved=False)
    assert [s.command for s in added] == ["user-proj"] and lines == []
