"""`pleat acp` driven by the ACP SDK's own client over real pipes: the handshake, a streamed
answer, tool calls with their kinds and statuses. The handshake, vision and model discovery
need a process of their own (a connection's first exchange, the environment); the other tests
share one (tests/e2e/acp/shared.py)."""

from __future__ import annotations

import asyncio
from base64 import b64encode
from pathlib import Path

import pytest
from acp import spawn_agent_process
from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from tests.e2e.acp.client import EXCHANGE_TIMEOUT, EditorClient, acp_env, pleat_acp
from tests.e2e.acp.shared import AcpLease
from tests.support.images import png
from tests.support.pleat_process import PLEAT
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# Each test starts `pleat acp` as a process or shares one (litellm's import included): not the
# fast set. The session-wide event loop: the shared process's connection lives on it.
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]


def text(value: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=value)]


async def test_the_handshake_names_pleat_and_what_it_offers(
    server: ScriptedServer, pleat_home: Path
) -> None:
    editor = EditorClient()
    async with spawn_agent_process(editor, *PLEAT, "acp", env=acp_env(pleat_home)) as (conn, _):
        answer = await asyncio.wait_for(conn.initialize(protocol_version=1), EXCHANGE_TIMEOUT)
        newer = await asyncio.wait_for(conn.initialize(protocol_version=7), EXCHANGE_TIMEOUT)
        older = await asyncio.wait_for(conn.initialize(protocol_version=0), EXCHANGE_TIMEOUT)
    assert answer.protocol_version == 1
    assert newer.protocol_version == older.protocol_version == 1  # the one pleat speaks
    assert answer.agent_info is not None and answer.agent_info.name == "pleat"
    capabilities = answer.agent_capabilities
    assert capabilities is not None and capabilities.load_session
    assert capabilities.prompt_capabilities is not None
    assert (
        capabilities.prompt_capabilities.image and capabilities.prompt_capabilities.embedded_context
    )


async def test_an_answer_streams_and_a_tool_call_shows_its_kind_and_status(
    acp: AcpLease, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    acp.server.push(
        ToolCalls([("read_file", {"path": "notes.txt"})]),
        Text("The file says alpha and beta."),
    )
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    done = await asyncio.wait_for(
        conn.prompt(session_id=session.session_id, prompt=text("what is in notes.txt?")),
        EXCHANGE_TIMEOUT,
    )
    assert done.stop_reason == "end_turn"
    sid = session.session_id
    assert "The file says alpha and beta." in editor.text(sid)
    started = editor.of(sid, "tool_call")
    ended = editor.of(sid, "tool_call_update")
    assert [(u.kind, u.status) for u in started] == [("read", "in_progress")]
    assert started[0].locations[0].path == str(workspace / "notes.txt")
    assert [(u.tool_call_id, u.status) for u in ended] == [(started[0].tool_call_id, "completed")]
    assert "alpha" in ended[0].content[0].content.text
    assert "usage_update" in editor.kinds(sid)


async def test_reasoning_is_a_thought_and_the_task_list_a_plan(
    acp: AcpLease, workspace: Path
) -> None:
    todos = [
        {"content": "read the code", "status": "done"},
        {"content": "write the fix", "status": "in_progress"},
        {"content": "run the tests", "status": "pending"},
    ]
    acp.server.push(
        ToolCalls([("todo_write", {"todos": todos})], reasoning="first, a plan"),
        Text("Planned."),
    )
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("plan it")), EXCHANGE_TIMEOUT)
    thoughts = "".join(u.content.text for u in editor.of(sid, "agent_thought_chunk"))
    assert thoughts == "first, a plan"
    plans = editor.of(sid, "plan")
    assert [(e.content, e.status) for e in plans[-1].entries] == [
        ("read the code", "completed"),
        ("write the fix", "in_progress"),
        ("run the tests", "pending"),
    ]
    started = editor.of(sid, "tool_call")
    assert started[0].kind == "think"


async def test_an_image_and_an_embedded_file_reach_the_model(
    server: ScriptedServer, pleat_home: Path, workspace: Path
) -> None:
    server.push(Text("seen"))
    blocks = [
        TextContentBlock(type="text", text="what is this?"),
        ImageContentBlock(type="image", mime_type="image/png", data=b64encode(png()).decode()),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=TextResourceContents(uri=f"file://{workspace}/open.py", text="x = 1\n"),
        ),
        ImageContentBlock(type="image", mime_type="image/png", data="bm90IGFuIGltYWdl"),
    ]
    async with pleat_acp(server, pleat_home, env={"PLEAT_VISION": "true"}) as (conn, editor, _):
        session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
        await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=blocks), EXCHANGE_TIMEOUT
        )
    sent = server.requests[0].body["messages"][-1]["content"]
    parts = sent if isinstance(sent, list) else [{"type": "text", "text": sent}]
    texts = "".join(p.get("text", "") for p in parts)
    assert "what is this?" in texts and f'<file path="{workspace}/open.py">' in texts
    assert "x = 1" in texts
    assert [p["type"] for p in parts].count("image_url") == 1
    assert "an image was not attached" in editor.text()  # the bad one, said, not dropped silently


async def test_a_prompt_too_long_is_refused_whole_and_nothing_is_sent(
    acp: AcpLease, workspace: Path
) -> None:
    acp.server.push(Text("a small answer"))
    huge = [
        EmbeddedResourceContentBlock(
            type="resource",
            resource=TextResourceContents(uri=f"file://{workspace}/f{i}.txt", text="x" * 90_000),
        )
        for i in range(3)
    ]
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    done = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=huge), EXCHANGE_TIMEOUT)
    assert done.stop_reason == "refusal" and acp.requests == []
    assert "over the 200,000 pleat takes at once" in editor.text(sid)
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("small")), EXCHANGE_TIMEOUT)
    sent = str(acp.requests[0].body["messages"])
    assert "x" * 1000 not in sent  # the refused prompt left no trace


async def test_without_a_model_the_first_one_found_is_used_and_said(
    pleat_home: Path, workspace: Path
) -> None:
    with ScriptedServer(models={"local-model"}) as local:  # no key needed: a local server
        local.push(Text("hello from a discovered model"))
        editor = EditorClient()
        env = acp_env(pleat_home, {"PLEAT_LOCAL_MODEL_SERVERS": local.base_url})
        async with spawn_agent_process(editor, *PLEAT, "acp", env=env) as (conn, _):
            await asyncio.wait_for(conn.initialize(protocol_version=1), EXCHANGE_TIMEOUT)
            session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
            await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=text("hi")), EXCHANGE_TIMEOUT
            )
    said = editor.text()
    assert "hello from a discovered model" in said
    assert "no model configured: using" in said and "local-model" in said
