"""A project's .mcp.json read as hostile input, its approval remembered by content, the /mcp
report's wording, and a server's stderr kept to its last lines."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agent.mcp.manager import McpServers
from agent.mcp.project_file import (
    APPROVALS,
    MAX_PROJECT_FILE_BYTES,
    approve,
    is_approved,
    read_project_servers,
)
from agent.mcp.report import NONE_CONFIGURED, report
from agent.mcp.settings import from_config
from agent.mcp.stderr_tail import KEPT_LINES, MAX_LINE_CHARS, StderrTail


def write(workspace: Path, data: object) -> None:
    text = data if isinstance(data, str) else json.dumps(data)
    (workspace / ".mcp.json").write_text(text)


def test_no_file_is_none(workspace: Path) -> None:
    assert read_project_servers(workspace) is None


def test_servers_are_read_sorted_and_bad_entries_skipped(workspace: Path) -> None:
    write(
        workspace,
        {
            "mcpServers": {
                "web": {"type": "http", "url": "https://x.invalid/mcp"},
                "fs": {"command": "npx", "args": ["fs"]},
                "bad": {"command": 3},
            }
        },
    )
    project = read_project_servers(workspace)
    assert project is not None
    assert [s.name for s in project.servers] == ["fs", "web"]
    assert project.problems == (
        ".mcp.json: mcpServers.bad.command must be a non-empty string, got 3; that server is not "
        "used",
    )
    assert all(s.source == ".mcp.json" for s in project.servers)


def test_hostile_files_are_not_used_and_say_why(workspace: Path, tmp_path: Path) -> None:
    cases = {
        "{not json": ".mcp.json is not valid JSON",
        "[" * 100 + "]" * 100: "nested more than 64 levels deep",
        '{"servers": {}}': '.mcp.json has no "mcpServers" object; not used',
        " " * (MAX_PROJECT_FILE_BYTES + 1): ".mcp.json is over 256 KiB; not used",
    }
    for text, problem in cases.items():
        write(workspace, text)
        project = read_project_servers(workspace)
        assert project is not None and project.servers == ()
        assert len(project.problems) == 1 and problem in project.problems[0], project.problems
    (workspace / ".mcp.json").unlink()
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"mcpServers": {"x": {"command": "evil"}}}))
    os.symlink(outside, workspace / ".mcp.json")
    project = read_project_servers(workspace)
    assert project is not None and project.servers == ()
    assert project.problems == (".mcp.json leads outside the workspace; not read",)


def test_an_approval_holds_for_that_content_only(workspace: Path, pleat_home: Path) -> None:
    write(workspace, {"mcpServers": {"fs": {"command": "npx"}}})
    project = read_project_servers(workspace)
    assert project is not None and not is_approved(workspace, project)
    approve(workspace, project)
    assert is_approved(workspace, project)
    assert oct((APPROVALS.path).stat().st_mode & 0o777) == "0o600"
    write(workspace, {"mcpServers": {"fs": {"command": "npx", "args": ["--evil"]}}})
    changed = read_project_servers(workspace)
    assert changed is not None and not is_approved(workspace, changed)
    other = workspace.parent / "other"
    other.mkdir()
    assert not is_approved(other, project)  # another workspace, same content: not approved
    (APPROVALS.path).write_text("{damaged")
    assert not is_approved(workspace, project)  # a damaged file approves nothing ...
    approve(workspace, project)  # ... and is written anew
    assert is_approved(workspace, project)


def test_the_report_without_servers_and_with_one_not_started(workspace: Path) -> None:
    assert report(None) == NONE_CONFIGURED
    assert report(McpServers(workspace)) == NONE_CONFIGURED
    servers = McpServers(
        workspace,
        from_config(
            {"docs": {"command": "docs-server"}, "off": {"url": "http://x", "enabled": False}}, "c"
        ),
    )
    servers.add(from_config({"docs": {"command": "other"}}, ".mcp.json"))
    assert report(servers).splitlines() == [
        "MCP servers (1):",
        "docs · starting · stdio: docs-server",
        "  from c; runs as you, outside the sandbox",
        "disabled (enabled = false): off",
        ".mcp.json: the MCP server docs is not used: a server of that name is already configured",
    ]


def test_stderr_keeps_the_last_lines_each_cut() -> None:
    tail = StderrTail()
    tail.add(b"first\nsec")
    tail.add(b"ond\r\n\n   \n")
    assert tail.lines() == ["first", "second"] and tail.last() == "second"
    tail.add(("x" * 10_000 + "\n").encode())
    assert len(tail.last() or "") == MAX_LINE_CHARS
    tail.add(b"".join(f"line {n}\n".encode() for n in range(100)))
    assert tail.lines() == [f"line {n}" for n in range(100 - KEPT_LINES, 100)]
    tail.add(b"\xff\xfe bad bytes\n")
    assert tail.last() == "\ufffd\ufffd bad bytes"
