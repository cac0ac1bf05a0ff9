"""An editor lent to a built agent (Agent.use_editor) over real HTTP: the turn loop's file tools,
and a sub-agent's started after, read and write through it; the disk stays as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.config import Config
from agent.events import Event, ToolCallFinished, TurnDone
from agent.permissions.policy import ApprovalRequest, Decision, Permissions
from agent.turn.loop import Agent
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.editor_buffers import BufferEditor
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import Reply, ScriptedServer, Text, ToolCalls
from tests.support.subagent_support import is_subagent

SAVED = "value = 1  # saved\n"
UNSAVED = "value = 1  # unsaved\n"


def respond(body: dict[str, Any]) -> Reply:
    """The parent edits a.py, hands a sub-agent the writing of b.txt, reads a.py, answers; the
    sub-agent writes b.txt and answers."""
    messages = body["messages"]
    if is_subagent(body):
        if len(messages) == 2:
            return ToolCalls([("write_file", {"path": "b.txt", "content": "from the task\n"})])
        return Text("wrote b.txt")
    step = sum(1 for message in messages if message["role"] == "tool")
    if step == 0:
        edit = {"path": "a.py", "old_string": "# unsaved", "new_string": "# edited"}
        return ToolCalls([("edit_file", edit)])
    if step == 1:
        return ToolCalls([("task", {"description": "write b", "prompt": "write b.txt"})])
    if step == 2:
        return ToolCalls([("read_file", {"path": "a.py"})])
    return Text("done")


@pytest.fixture
def session(workspace: Path) -> Any:
    opened = Session.create(workspace, model=TEST_MODEL)
    yield opened
    opened.close()


@pytest.fixture
def root(workspace: Path) -> Path:
    """The workspace as the tools resolve it: the paths the editor is given lie in it."""
    return workspace.resolve()


async def run(agent: Agent, prompt: str) -> list[Event]:
    return [event async for event in agent.run_turn(prompt)]


async def test_an_editor_set_after_build_takes_every_file_call(
    server: ScriptedServer, workspace: Path, root: Path, session: Session
) -> None:
    (root / "a.py").write_text(SAVED)
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision(True)

    server.fallback = respond
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=0,
        local_model_servers=(),
    )
    agent = build_agent(config, workspace, approve, session=session, permissions=Permissions())
    editor = BufferEditor({root / "a.py": UNSAVED})
    agent.use_editor(editor)

    events = await run(agent, "edit, delegate, read")
    assert isinstance(events[-1], TurnDone) and events[-1].text == "done"
    results = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.is_error for e in results] == [False, False, False]
    assert results[0].text == "edited a.py: replaced 1 occurrence (at line 1)"
    assert results[2].text == "     1\tvalue = 1  # edited"  # the buffer, as edited

    # The edit was approved on the diff against the buffer, not the disk.
    edit_asked = next(r for r in asked if r.tool == "edit_file")
    assert "-value = 1  # unsaved\n+value = 1  # edited\n" in edit_asked.preview
    assert editor.buffers == {
        root / "a.py": "value = 1  # edited\n",
        root / "b.txt": "from the task\n",  # the sub-agent's write went through it too
    }
    assert (root / "a.py").read_text() == SAVED
    assert not (root / "b.txt").exists()
    assert_history_valid(agent.history)

    # Taken back, the disk answers again.
    agent.use_editor(None)
    server.push(ToolCalls([("read_file", {"path": "a.py"})]), Text("read"))
    again = await run(agent, "read again")
    read = next(e for e in again if isinstance(e, ToolCallFinished))
    assert read.text == "     1\tvalue = 1  # saved"
