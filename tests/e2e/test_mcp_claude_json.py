"""MCP servers configured where `claude mcp add` puts them, in ~/.claude.json: a real server from
the registry (mcp-server-fetch) fetching a page from an HTTP server on 127.0.0.1 in a headless
run, and the TUI starting them beside a project's .mcp.json."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_support import echo_entry, write_project_file
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import asked, make_app, started, wait_for
from tui.screens.project_approval import McpApprovalScreen

pytestmark = pytest.mark.slow

# The registry's fetch server, installed with the dev dependencies (its console script).
FETCH_SERVER = str(Path(sys.executable).parent / "mcp-server-fetch")
# A phrase only the page holds: in the tool's result, it came from the page through the server.
PHRASE = "the heron waits at the weir"
# The run's permission for the tool (a headless run asks nobody).
ALLOW = ("--allow", "mcp__web__fetch")


class Page(BaseHTTPRequestHandler):
    """One HTML page at /page.html; every request's path and User-Agent kept."""

    seen: list[tuple[str, str]]

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("User-Agent", "")))
        if self.path != "/page.html":
            self.send_error(404)
            return
        body = f"<html><body><h1>Notes</h1><p>{PHRASE}</p></body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def page() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """The page's URL on a loopback port, and the requests it received."""
    seen: list[tuple[str, str]] = []
    handler = type("SeenPage", (Page,), {"seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/page.html", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


def fetch_entry(**extra: Any) -> dict[str, Any]:
    """The fetch server as `claude mcp add web -- mcp-server-fetch ...` writes it, with a
    ${VAR:-default} the run expands."""
    args = ["--allow-private-ips", "--user-agent", "${FETCH_AGENT:-pleat-claude-json-test}"]
    return {"type": "stdio", "command": FETCH_SERVER, "args": args, "env": {}, **extra}


def write_state(workspace: Path, user: dict[str, Any], local: dict[str, Any]) -> Path:
    """$CLAUDE_CONFIG_DIR/.claude.json (the conftest's) with servers in both scopes, among the
    other keys Claude Code keeps there; returns the directory."""
    claude_dir = Path(os.environ["CLAUDE_CONFIG_DIR"])
    claude_dir.mkdir(parents=True, exist_ok=True)
    project = {"mcpServers": local, "allowedTools": [], "history": []}
    state = {"numStartups": 9, "mcpServers": user, "projects": {str(workspace.resolve()): project}}
    (claude_dir / ".claude.json").write_text(json.dumps(state))
    return claude_dir


def fetched(server: ScriptedServer) -> str:
    (result,) = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    return str(result)


def test_a_user_scope_server_in_the_home_fetches_a_local_page(
    server: ScriptedServer,
    workspace: Path,
    pleat_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    page: tuple[str, list[tuple[str, str]]],
) -> None:
    """`claude mcp add --scope user`: top-level mcpServers of ~/.claude.json (no
    CLAUDE_CONFIG_DIR), used without a question, named by its scope in /mcp."""
    url, seen = page
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    state = {"numStartups": 3, "mcpServers": {"web": fetch_entry()}, "projects": {}}
    (home / ".claude.json").write_text(json.dumps(state))
    # With the default sandbox: the user's own server runs as the user and reaches the page.
    server.push(ToolCalls([("mcp__web__fetch", {"url": url})]), Text("it says so"))
    # Without --yes: nothing is approved for the run, and the user's own servers need nothing.
    done = run_pleat(workspace, server, "-p", "what does the page say?", *ALLOW, yes=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "it says so"
    assert PHRASE in fetched(server)
    assert ("/page.html", "pleat-claude-json-test") in seen  # ${FETCH_AGENT:-...} expanded
    listing = run_pleat(workspace, server, "-p", "/mcp", yes=False)
    assert "web · running" in listing.stdout, listing.stdout + listing.stderr
    assert "from ~/.claude.json (user)" in listing.stdout


def test_a_local_scope_server_wins_over_the_user_scope(
    server: ScriptedServer,
    workspace: Path,
    page: tuple[str, list[tuple[str, str]]],
) -> None:
    """`claude mcp add` (local scope, the default): projects[<workspace>].mcpServers of
    $CLAUDE_CONFIG_DIR/.claude.json; its `web` is used, not the user scope's broken one of the
    same name; it reaches the network with the default settings."""
    url, seen = page
    broken = {"command": "/bin/sh", "args": ["-c", "exit 3"]}
    claude_dir = write_state(workspace, {"web": broken}, {"web": fetch_entry()})
    server.push(ToolCalls([("mcp__web__fetch", {"url": url})]), Text("read it"))
    done = run_pleat(
        workspace, server, "-p", "read it", *ALLOW, yes=False, env={"FETCH_AGENT": "agent-7"}
    )
    assert done.returncode == 0, done.stderr
    assert PHRASE in fetched(server)
    assert ("/page.html", "agent-7") in seen  # ${FETCH_AGENT} from the environment
    listing = run_pleat(workspace, server, "-p", "/mcp", yes=False)
    label = f"{claude_dir / '.claude.json'}"
    assert f"from {label} (local)" in listing.stdout, listing.stdout
    assert (
        f"{label} (user): the MCP server web is not used: {label} (local)'s server of that name "
        "comes first"
    ) in listing.stdout


async def test_the_tui_starts_them_and_a_declined_mcp_json_leaves_the_user_scope_server(
    server: ScriptedServer, workspace: Path
) -> None:
    """In the TUI: the local scope's server starts with no question; .mcp.json's `echo` would
    replace the user scope's `echo` once approved, and declined, the user's runs."""
    claude_dir = write_state(workspace, {"echo": echo_entry()}, {"loc": echo_entry()})
    write_project_file(workspace, {"echo": {"command": "/bin/false"}})
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await asked(pilot, app, McpApprovalScreen, "the .mcp.json question")
        await pilot.press("n")
        mcp = app.controller.mcp if app.controller is not None else None
        assert mcp is not None

        def running() -> dict[str, str]:
            return {s.name: s.settings.source for s in mcp.servers if s.state == "running"}

        label = str(claude_dir / ".claude.json")
        want = {"echo": f"{label} (user)", "loc": f"{label} (local)"}
        await wait_for(pilot, lambda: running() == want, "both servers of ~/.claude.json")
