"""A real MCP server from the package registry, the reference `mcp-server-fetch`, configured as a
Claude Code or Codex user configures it (config.toml, a project's approved .mcp.json), fetching a
page from a web server on 127.0.0.1: it runs as the user, so it reaches the page; opted into the
sandbox (`sandbox = true`) it is refused the connection, which one line names, and the turn goes
on."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.mcp_support import write_config, write_project_file
from tests.support.pleat_process import run_pleat
from tests.support.sandbox_support import needs_sandbox
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.web_server import Route, WebServer

# Slow: pleat headless with a real server's start (its imports take a second or two).
pytestmark = [pytest.mark.slow, needs_sandbox]

# The server's console script, installed beside this interpreter from the dev dependencies.
FETCH_SERVER = str(Path(sys.executable).parent / "mcp-server-fetch")
PAGE = b"<html><body><h1>Release notes</h1><p>Version 7 ships the quiet fold.</p></body></html>"
SAID = "Version 7 ships the quiet fold."


@pytest.fixture(scope="module")
def site() -> Iterator[WebServer]:
    routes = {"/notes.html": Route(PAGE, headers={"Content-Type": "text/html"})}
    with WebServer(routes) as server:
        yield server


def fetch_call(site: WebServer) -> ToolCalls:
    url = f"{site.root_url}/notes.html"
    return ToolCalls([("mcp__fetch__fetch", {"url": url, "max_length": 2000})])


def fetched(server: ScriptedServer) -> str:
    (result,) = [str(m["content"]) for m in server.requests[1].messages if m["role"] == "tool"]
    return result


def table(*extra: str) -> str:
    lines = ["[mcp_servers.fetch]", f"command = {json.dumps(FETCH_SERVER)}"]
    lines += ['args = ["--ignore-robots-txt", "--allow-private-ips"]', *extra]
    return "\n".join(lines) + "\n"


def test_the_fetch_server_from_config_toml_reaches_a_local_page(
    server: ScriptedServer, workspace: Path, pleat_home: Path, site: WebServer
) -> None:
    assert shutil.which("mcp-server-fetch", path=str(Path(FETCH_SERVER).parent))
    write_config(pleat_home, table())
    server.push(fetch_call(site), Text("read it"))
    done = run_pleat(workspace, server, "-p", "what is new?")
    assert done.returncode == 0, done.stderr
    assert SAID in fetched(server)


def test_the_fetch_server_from_an_approved_mcp_json_reaches_a_local_page(
    server: ScriptedServer, workspace: Path, site: WebServer
) -> None:
    write_project_file(
        workspace,
        {
            "fetch": {
                "command": FETCH_SERVER,
                "args": ["--ignore-robots-txt", "--allow-private-ips"],
            }
        },
    )
    server.push(fetch_call(site), Text("read it"))
    done = run_pleat(workspace, server, "-p", "what is new?")  # --yes approves the file
    assert done.returncode == 0, done.stderr
    assert SAID in fetched(server)


def test_the_fetch_server_opted_into_the_sandbox_is_refused_and_says_so(
    server: ScriptedServer, workspace: Path, pleat_home: Path, site: WebServer
) -> None:
    write_config(pleat_home, table("sandbox = true"))
    server.push(fetch_call(site), Text("could not read it"))
    done = run_pleat(workspace, server, "-p", "what is new?")
    assert done.returncode == 0, done.stderr
    result = fetched(server)
    assert SAID not in result
    assert "the sandbox refused the MCP server fetch a network connection" in result
    assert "sandbox = true" in result
    assert "could not read it" in done.stdout
