"""Memory that keeps itself, through two `pleat -p` runs against the scripted server: a preference
the model writes with `memory` in session 1 (unasked, without --yes) is in session 2's first
request, the secret-looking key it came with is not, and `/memory` shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessions.memory_store import WorkspaceMemory
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# A key of Anthropic's shape (sessions/redact.py knows it), made up for the test.
SECRET = "sk-ant-api03-Zq8vN2xT5kW1pR7mB4cY9hL3dF6gJ0sA"
PREFERENCE = "The user wants commit messages in the imperative mood"

pytestmark = pytest.mark.slow


def test_a_preference_kept_in_session_one_reaches_session_two_and_a_secret_does_not(
    server: ScriptedServer, workspace: Path
) -> None:
    note = f"{PREFERENCE} (their deploy key was {SECRET})"
    server.push(ToolCalls([("memory", {"command": "add", "text": note})]), Text("Noted."))
    first = run_pleat(workspace, server, "-p", "Always write commits imperatively.", yes=False)
    assert first.returncode == 0, first.stderr
    answer = server.requests[-1].messages[-1]
    assert answer["role"] == "tool" and "Added to the memory" in answer["content"]
    assert SECRET not in answer["content"]
    memory = WorkspaceMemory.of(workspace)
    assert SECRET not in memory.path.read_text()

    server.push(Text("ok"))
    second = run_pleat(workspace, server, "-p", "hello", yes=False)
    assert second.returncode == 0, second.stderr
    system = server.requests[-1].messages[0]
    assert system["role"] == "system" and PREFERENCE in system["content"]
    assert SECRET not in str(server.requests[-1].messages)
    assert "memory" in [tool["function"]["name"] for tool in server.requests[-1].body["tools"]]

    listed = run_pleat(workspace, server, "-p", "/memory")
    assert listed.returncode == 0, listed.stderr
    assert f"auto     {memory.path}" in listed.stdout.splitlines()
    assert PREFERENCE in listed.stdout and SECRET not in listed.stdout
