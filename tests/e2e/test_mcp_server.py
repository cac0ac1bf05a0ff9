"""One MCP server's life in process, against the real echo server as a subprocess: a call cancelled
mid-way (Esc) leaves the connection usable, calls run concurrently, a server printing garbage on
its stdout is survived, the environment holds no secret but the ones its table names."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

import pytest

from agent.mcp.manager import McpServers
from agent.mcp.server import STOP_SECONDS
from agent.mcp.settings import from_config
from tests.support.mcp_support import ECHO_SERVER, http_mcp_process, read_pid, wait_gone, wait_until
from tools.base import ToolContext

pytestmark = pytest.mark.slow


def echo(pid_file: Path, **env: str) -> McpServers:
    table = {
        "command": sys.executable,
        "args": [str(ECHO_SERVER)],
        "env": {"ECHO_PID_FILE": str(pid_file), **env},
    }
    return McpServers(pid_file.parent, from_config({"echo": table}, "config.toml"))


async def test_a_cancelled_call_leaves_the_server_usable_and_calls_run_together(
    tmp_path: Path,
) -> None:
    servers = echo(tmp_path / "echo.pid")
    await servers.start()
    await servers.settled()
    try:
        (server,) = servers.servers
        assert server.state == "running"
        tools = {tool.remote: tool for tool in servers.available_tools()}
        ctx = ToolContext(tmp_path)
        napping = asyncio.create_task(tools["nap"].run({"seconds": 60}, ctx))
        await asyncio.to_thread(wait_until, (tmp_path / "echo.pid.nap").exists)  # it has begun
        napping.cancel()  # Esc
        with pytest.raises(asyncio.CancelledError):
            await napping
        first, second = await asyncio.gather(
            tools["echo"].run({"text": "one"}, ctx), tools["echo"].run({"text": "two"}, ctx)
        )
        assert (first.text, second.text) == ("echo: one", "echo: two")
        assert server.state == "running"
    finally:
        await servers.stop()
    pid = read_pid(tmp_path / "echo.pid")
    assert server.state == "stopped"
    assert await asyncio.to_thread(wait_gone, pid)


async def test_the_server_gets_no_secret_but_those_its_table_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_API_KEY", "sk-not-for-servers-0123456789")
    monkeypatch.setenv("DOCS_TOKEN", "docs-token-for-this-server-only")
    monkeypatch.setenv("PLAIN_SETTING", "kept")
    probe = tmp_path / "env.json"
    script = f"import json, os; open({str(probe)!r}, 'w').write(json.dumps(dict(os.environ)))"
    table = {
        "command": sys.executable,
        "args": ["-c", script],
        "env": {"DOCS_TOKEN": "${DOCS_TOKEN}"},
        "startup_timeout_sec": 30,
    }
    servers = McpServers(tmp_path, from_config({"probe": table}, "config.toml"))
    await servers.start()
    await servers.settled()  # it exits at once: failed, after writing its environment
    await servers.stop()
    environment = json.loads(probe.read_text())
    assert environment["DOCS_TOKEN"] == "docs-token-for-this-server-only"
    assert environment["PLAIN_SETTING"] == "kept"
    assert "SOME_API_KEY" not in environment
    assert servers.servers[0].state == "failed"


async def test_garbage_on_stdout_does_not_break_the_client(tmp_path: Path) -> None:
    """A line that is not JSON-RPC before the server speaks: reported to the session, not
    raised into pleat, and the server still works."""
    wrapper = tmp_path / "noisy.py"
    wrapper.write_text(
        "import runpy, sys\n"
        "print('hello from a server that prints on stdout', flush=True)\n"
        f"sys.argv = [{str(ECHO_SERVER)!r}]\n"
        f"runpy.run_path({str(ECHO_SERVER)!r}, run_name='__main__')\n"
    )
    table = {"command": sys.executable, "args": [str(wrapper)]}
    servers = McpServers(tmp_path, from_config({"noisy": table}, "config.toml"))
    await servers.start()
    await servers.settled()
    try:
        tools = {tool.remote: tool for tool in servers.available_tools()}
        result = await tools["echo"].run({"text": "still fine"}, ToolContext(tmp_path))
        assert result.text == "echo: still fine"
    finally:
        await servers.stop()
    assert servers.servers[0].state == "stopped"


async def test_a_stop_during_start_up_ends_the_server_at_once(tmp_path: Path) -> None:
    """pleat quits while a server is still starting (and would linger after its stdin
    closes): the handshake is abandoned, the process is killed, the state is stopped."""
    pid_file = tmp_path / "echo.pid"
    servers = echo(pid_file, ECHO_WAIT_FOR=str(tmp_path / "never"), ECHO_LINGER="1")
    await servers.start()
    pid = await asyncio.to_thread(read_pid, pid_file)
    assert servers.servers[0].state == "starting"
    await servers.stop()
    assert servers.servers[0].state == "stopped" and servers.servers[0].error is None
    assert await asyncio.to_thread(wait_gone, pid)


async def test_a_hung_http_server_is_dropped_so_stopping_never_hangs(tmp_path: Path) -> None:
    with http_mcp_process() as (url, process):
        servers = McpServers(tmp_path, from_config({"web": {"url": url}}, "config.toml"))
        await servers.start()
        await servers.settled()
        (server,) = servers.servers
        assert server.state == "running"
        process.send_signal(signal.SIGSTOP)  # hung: connections are taken, nothing is answered
        # Its session's DELETE is never answered; before HTTP_STOP_SECONDS existed, a stop
        # waited STOP_SECONDS (a stdio server's bound) and then some.
        await asyncio.wait_for(servers.stop(), STOP_SECONDS)
        assert server.state == "stopped"
        assert process.poll() is None  # still there, still frozen: pleat did not wait on it
