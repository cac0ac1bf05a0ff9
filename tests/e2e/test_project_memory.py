"""Memory across sessions, headless against the scripted server: read_archive with scope
"project" finds a word only an earlier session of the same workspace saw (one opened through a
symlink to it), and nothing of another workspace's session that saw the same word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessions.store import list_sessions
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

pytestmark = pytest.mark.slow

WORD = "quokkafish"


def test_project_scope_finds_an_earlier_sessions_word_and_not_another_workspaces(
    server: ScriptedServer, tmp_path: Path
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    (tmp_path / "link").symlink_to(here)
    server.push(Text(f"The codename is {WORD}."))
    assert run_pleat(tmp_path / "link", server, "-p", "pick a codename").returncode == 0
    server.push(Text(f"Over there the codename is {WORD} too."))
    assert run_pleat(there, server, "-p", "pick one too").returncode == 0
    (earlier,) = [s.id for s in list_sessions(here.resolve())]
    (elsewhere,) = [s.id for s in list_sessions(there.resolve())]

    search = {"action": "search", "scope": "project", "query": WORD}
    server.push(ToolCalls([("read_archive", search)]), Text("It was quokkafish."))
    asked = len(server.requests)
    done = run_pleat(here, server, "-p", "what was the codename we chose?")
    assert done.returncode == 0, done.stderr
    first, second = (request.messages for request in server.requests[asked:])
    assert WORD not in json.dumps(first)  # this session never saw it before it searched
    found = second[-1]
    assert found["role"] == "tool"
    assert found["content"].startswith("1 hit ") and f"session {earlier} (" in found["content"]
    assert f"The codename is »{WORD}«." in found["content"]
    assert elsewhere not in found["content"] and "Over there" not in found["content"]
