"""Where the editor offers fs/read_text_file and fs/write_text_file, pleat reads its unsaved
buffers and writes through it: the disk is never written behind the editor's back."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import TextContentBlock

from tests.e2e.acp.client import EXCHANGE_TIMEOUT, EditorClient, pleat_acp
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Each test starts `pleat acp` as a process (litellm's import included): not the fast set.
pytestmark = pytest.mark.slow


async def test_reads_and_writes_go_through_the_editor_and_the_disk_is_untouched(
    server: ScriptedServer, pleat_home: Path, workspace: Path
) -> None:
    source = workspace / "app.py"
    source.write_text("x = 1\n")
    editor = EditorClient()
    editor.buffers[str(source)] = "x = 2  # unsaved\n"
    server.push(
        ToolCalls([("read_file", {"path": "app.py"})]),
        ToolCalls(
            [("edit_file", {"path": "app.py", "old_string": "x = 2", "new_string": "x = 3"})]
        ),
        ToolCalls([("write_file", {"path": "new.py", "content": "y = 1\n"})]),
        Text("done"),
    )
    async with pleat_acp(server, pleat_home, client=editor, fs=True) as (conn, _, _process):
        session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
        editor.answers = ["allow", "allow"]  # the edit and the write ask (ask mode)
        done = await asyncio.wait_for(
            conn.prompt(
                session_id=session.session_id,
                prompt=[TextContentBlock(type="text", text="bump x")],
            ),
            EXCHANGE_TIMEOUT,
        )
    assert done.stop_reason == "end_turn"
    read_result = server.requests[1].body["messages"][-1]["content"]
    assert "x = 2  # unsaved" in read_result  # the buffer, not the disk
    assert editor.buffers[str(source)] == "x = 3  # unsaved\n"
    assert editor.buffers[str(workspace / "new.py")] == "y = 1\n"
    assert source.read_text() == "x = 1\n"  # the disk as it was
    assert not (workspace / "new.py").exists()
    tool_call, _ = editor.permission_requests[0]
    assert "x = 3" in tool_call.content[0].content.text  # the diff asked about is the buffer's
