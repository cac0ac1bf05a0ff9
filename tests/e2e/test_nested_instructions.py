"""A subdirectory's AGENTS.md against the scripted server: it reaches the model right after the
step that first edits a file under it, not before, never in the system prompt, once while it is
in the conversation, and again after a fold took it into a chunk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.compaction_agent import GOOD_SUMMARY, make_agent, run
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

RULE = "PKG RULE: tabs, never spaces"


def carrying(messages: list[dict[str, Any]]) -> list[int]:
    """The positions of the messages that carry the nested rule."""
    return [i for i, m in enumerate(messages) if RULE in str(m.get("content"))]


async def test_a_nested_agents_md_joins_when_its_directory_is_first_edited(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Root rule: be brief.\n")
    (workspace / "notes.txt").write_text("hello\n")
    package = workspace / "pkg"
    package.mkdir()
    (package / "AGENTS.md").write_text(RULE + "\n")
    (package / "app.py").write_text("x = 1\n")
    edit = {"path": "pkg/app.py", "old_string": "x = 1", "new_string": "x = 2"}
    server.push(
        # Neither a read elsewhere nor a listing of pkg/ reads or edits a file under it.
        ToolCalls([("read_file", {"path": "notes.txt"}), ("list_dir", {"path": "pkg"})]),
        ToolCalls([("edit_file", edit)]),
        ToolCalls([("write_file", {"path": "pkg/new.py", "content": "y = 1\n"})]),
        Text("done"),
    )
    agent = make_agent(server, workspace, tail_messages=2, tail_tokens=200)
    await run(agent, "change pkg/app.py")
    requests = [request.messages for request in server.requests]
    assert [len(carrying(messages)) for messages in requests] == [0, 0, 1, 1]
    third = requests[2]
    (at,) = carrying(third)
    assert third[at]["role"] == "user" and at == len(third) - 1
    assert third[at - 1]["role"] == "tool" and "pkg/app.py" in third[at - 1]["content"]
    system = requests[0][0]["content"]
    assert "Root rule: be brief." in system and RULE not in system
    assert all(messages[0]["content"] == system for messages in requests)  # the cache holds
    assert agent.nested.in_use() == ["pkg/AGENTS.md"]

    server.push(Text(GOOD_SUMMARY))  # a fold takes the rule into a chunk ...
    [event async for event in agent.compact()]
    assert not carrying([m.to_api() for m in agent.history])
    server.push(ToolCalls([("read_file", {"path": "pkg/new.py"})]), Text("read"))
    await run(agent, "read pkg/new.py")
    assert len(carrying(server.requests[-1].messages)) == 1  # ... and the next touch brings it
