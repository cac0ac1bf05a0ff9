"""Helpers for the MCP tests: the echo server's command, config tables, .mcp.json, processes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# The real stdio MCP server the tests configure (written with the `mcp` package).
ECHO_SERVER = Path(__file__).resolve().parent / "mcp_servers" / "echo_server.py"
# Seconds a process is given to disappear after pleat has ended (stopping a server takes
# milliseconds; its shutdown's own bound is 6.5 s for a server that ignores its stdin closing).
GONE_WITHIN_SECONDS = 15.0


def echo_table(
    name: str = "echo",
    *,
    pid_file: Path | None = None,
    linger: bool = False,
    probe: bool = False,
    **extra: str,
) -> str:
    """A config.toml table running the echo server (its pid written to `pid_file`; `linger`:
    it outlives its stdin, so only a kill ends it; `probe`: with its `probe` tool)."""
    env = {"ECHO_PID_FILE": str(pid_file)} if pid_file is not None else {}
    if linger:
        env["ECHO_LINGER"] = "1"
    lines = [
        f"[mcp_servers.{name}]",
        f"command = {json.dumps(sys.executable)}",
        f"args = {json.dumps([str(ECHO_SERVER), *(['--probe'] if probe else [])])}",
    ]
    if env:
        pairs = ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items())
        lines.append(f"env = {{ {pairs} }}")
    lines += [f"{key} = {value}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


# A server whose command exits at once, before saying anything: `false`, through the shell.
BROKEN_TABLE = """
[mcp_servers.broken]
command = "/bin/sh"
args = ["-c", "echo 'broken: cannot start, no database' >&2; exit 1"]
"""


def write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


def echo_entry(pid_file: Path | None = None) -> dict[str, Any]:
    """A .mcp.json entry (Claude Code's format) running the echo server."""
    entry: dict[str, Any] = {"command": sys.executable, "args": [str(ECHO_SERVER)]}
    if pid_file is not None:
        entry["env"] = {"ECHO_PID_FILE": str(pid_file)}
    return entry


def write_project_file(workspace: Path, servers: dict[str, Any]) -> Path:
    path = workspace / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    return path


def alive(pid: int) -> bool:
    """Whether a process with this pid exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + GONE_WITHIN_SECONDS
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def wait_until(condition: Callable[[], object], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting after {seconds:g} s")
        time.sleep(0.05)


def read_pid(path: Path) -> int:
    wait_until(lambda: path.exists() and path.read_text().strip())
    return int(path.read_text())


def slow_command() -> str:
    """A command that sleeps a minute, with a number no other process's command line holds: a
    command in the sandbox runs in a PID namespace of its own, where `$$` names another pid,
    so the test finds it from outside by that number (pid_running)."""
    return f"sleep 60.{uuid.uuid4().int % 10**9:09d}"


def command_lines() -> Iterator[tuple[int, bytes]]:
    """Each live process as this test sees it (not this one): its pid and command line."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            line = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if alive(int(entry.name)):
            yield int(entry.name), line


def pid_running(command_line: str) -> int | None:
    """The pid, as this test sees it, of a process whose command line is `command_line`."""
    wanted = command_line.replace(" ", "\0").encode()
    return next((pid for pid, line in command_lines() if line.rstrip(b"\0") == wanted), None)


def pids_holding(word: str) -> list[int]:
    """Pids, as this test sees them, of the live processes whose command line holds `word` (a
    sandboxed command, its shell and its launcher all hold its command line)."""
    return [pid for pid, line in command_lines() if word.encode() in line]


def started_pids(marker: Path, token: str) -> list[int]:
    """The processes of a command whose sleep holds `token`, once it has written `marker`."""
    wait_until(lambda: marker.exists() and pids_holding(f"sleep {token}"))
    return pids_holding(token)


def wait_all_gone(word: str) -> bool:
    """Whether every process holding `word` ends within GONE_WITHIN_SECONDS."""
    return all(wait_gone(pid) for pid in pids_holding(word))


def kill_holding(word: str) -> None:
    """Clean up after a failed test: no process holding `word` left behind."""
    for pid in pids_holding(word):
        kill_if_alive(pid)


def kill_if_alive(pid: int) -> None:
    """Clean up after a failed test: never leave a server behind."""
    if alive(pid):
        os.kill(pid, 9)


# The real streamable HTTP MCP server the tests run on a loopback port.
HTTP_SERVER = Path(__file__).resolve().parent / "mcp_servers" / "http_server.py"


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def http_mcp_server() -> Iterator[str]:
    """The HTTP MCP server running; yields its URL, and stops it at the end."""
    with http_mcp_process() as (url, _):
        yield url


@contextlib.contextmanager
def http_mcp_process() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The HTTP MCP server running; yields its URL and its process (which a test may freeze
    with SIGSTOP: a hung server), and stops it at the end (thawed first)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(HTTP_SERVER), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def listening() -> bool:
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", port)) == 0

        wait_until(listening)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.send_signal(signal.SIGCONT)
        process.kill()
        process.wait()


# A hand-written stdio server whose tool list is careless or hostile ($RAW_MODE chooses how).
RAW_SERVER = Path(__file__).resolve().parent / "mcp_servers" / "raw_server.py"


def raw_table(mode: str, name: str = "raw", **env: str) -> str:
    """A config.toml table running the raw server in `mode` (more of its variables in `env`)."""
    pairs = ", ".join(f"{k} = {json.dumps(v)}" for k, v in {"RAW_MODE": mode, **env}.items())
    return (
        f"[mcp_servers.{name}]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(RAW_SERVER))}]\nenv = {{ {pairs} }}\n"
    )
