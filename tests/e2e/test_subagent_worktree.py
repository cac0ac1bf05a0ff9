"""A sub-agent whose definition says `isolation: worktree`, over real HTTP and a real git
repository: it works in a worktree of its own, and its result names its branch; the worktree is
kept when it changed something there and removed (with its branch) when it did not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.assemble import build_agent
from agent.config import Config
from agent.events import TurnDone
from agent.permissions.policy import Permissions, approve_all
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.git_support import git, git_repo
from tests.support.hook_support import tool_results
from tests.support.scripted_server import Reply, ScriptedServer, Text, ToolCalls
from tests.support.subagent_support import is_subagent

ISOLATED = b"---\ndescription: Works apart\nisolation: worktree\n---\nYou work apart.\n"


def respond(body: dict[str, Any]) -> Reply:
    """The parent hands out two tasks to the isolated agent: "write" writes a file, then
    answers; "look" answers at once."""
    messages = body["messages"]
    if is_subagent(body):
        if messages[1]["content"] == "write" and messages[-1]["role"] == "user":
            return ToolCalls([("write_file", {"path": "new.txt", "content": "work\n"})])
        return Text(f"{messages[1]['content']} done")
    if messages[-1]["role"] == "user":
        tasks = [
            {"description": p, "prompt": p, "subagent_type": "isolated"} for p in ("write", "look")
        ]
        return ToolCalls([("task", arguments) for arguments in tasks])
    return Text("parent done")


async def test_an_isolated_subagent_works_in_its_own_worktree_and_reports_its_branch(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / ".pleat" / "agents").mkdir(parents=True)
    git_repo(workspace, {"README": b"readme\n", ".pleat/agents/isolated.md": ISOLATED})
    server.fallback = respond
    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY)
    session = Session.create(workspace, model=TEST_MODEL)
    try:
        agent = build_agent(
            config, workspace, approve_all, session=session, permissions=Permissions("full-auto")
        )
        events = [event async for event in agent.run_turn("work apart")]
    finally:
        session.close()
    assert isinstance(events[-1], TurnDone) and events[-1].text == "parent done"

    wrote, looked = tool_results(server, len(server.requests) - 1)
    kept = git(workspace, "branch", "--format=%(refname:short)", "--list", "pleat/agent-*").split()
    assert len(kept) == 1  # the branch of the one that looked is gone with its worktree
    branch = kept[0]
    tree = workspace / ".pleat" / "worktrees" / branch.removeprefix("pleat/")
    assert wrote.startswith("write done")
    assert f"its work is kept in the worktree {tree} (branch {branch})" in wrote
    assert looked.startswith("look done") and "it changed nothing" in looked
    assert "was removed" in looked and "branch pleat/agent-" in looked
    assert (tree / "new.txt").read_text() == "work\n"
    assert not (workspace / "new.txt").exists()
    assert git(workspace, "status", "--porcelain") == ""  # the main checkout: untouched
    (sub,) = [
        r.body
        for r in server.requests
        if is_subagent(r.body) and r.messages[-1]["content"] == "write"
    ]
    assert f"Workspace (every path is relative to it): {tree}" in sub["messages"][0]["content"]
