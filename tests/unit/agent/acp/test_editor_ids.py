"""The editor's ids of tool calls are unique within a session, whatever ids the model gives (a
server that gives none names every turn's first call the same; a model may repeat one)."""

from __future__ import annotations

from pathlib import Path

from agent.acp.updates import UpdateStream
from agent.events import ToolCallFinished, ToolCallStarted
from sessions.messages import ToolCall
from tests.support.compaction_agent import make_agent
from tests.support.scripted_server import ScriptedServer


async def test_a_repeated_model_id_gets_a_new_editor_id_each_time(
    server: ScriptedServer, workspace: Path
) -> None:
    agent = make_agent(server, workspace)
    stream = UpdateStream(agent, "s1")
    ids = []
    for _ in range(2):  # two turns, each with the model's call id "call_pleat_0"
        call = ToolCall("call_pleat_0", "read_file", '{"path": "a.txt"}')
        (started,) = await stream.updates(ToolCallStarted(call, "read_file(a.txt)"))
        ended = await stream.updates(ToolCallFinished(call, "text", False))
        assert ended[0].tool_call_id == started.tool_call_id  # its end names the same call
        ids.append(started.tool_call_id)
    assert ids[0] != ids[1]
