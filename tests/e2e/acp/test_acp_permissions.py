"""What would ask in the terminal asks the editor (session/request_permission): a write rejected
leaves the file as it was, one allowed is made, "allow always" is remembered for the session;
the permission modes are the session's modes. The tests share the worker's `pleat acp`
(tests/e2e/acp/shared.py), each with its own sessions and answers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import TextContentBlock

from tests.e2e.acp.client import EXCHANGE_TIMEOUT
from tests.e2e.acp.shared import AcpLease
from tests.support.scripted_server import Text, ToolCalls

# `pleat acp` as a process, shared (litellm's import included): not the fast set. The
# session-wide event loop: the shared process's connection lives on it.
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]


def text(value: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=value)]


def write(path: str, content: str) -> ToolCalls:
    return ToolCalls([("write_file", {"path": path, "content": content})])


async def test_a_rejected_write_leaves_the_file_and_an_allowed_one_is_made(
    acp: AcpLease, workspace: Path
) -> None:
    target = workspace / "a.txt"
    target.write_text("before\n")
    acp.server.push(write("a.txt", "rejected\n"), Text("not written"))
    acp.server.push(write("a.txt", "allowed\n"), Text("written"))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    assert session.modes is not None and session.modes.current_mode_id == "ask"
    editor.answers = ["reject"]
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("write it")), EXCHANGE_TIMEOUT)
    assert target.read_text() == "before\n"
    editor.answers = ["allow"]
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("again")), EXCHANGE_TIMEOUT)
    assert target.read_text() == "allowed\n"
    first, _ = editor.permission_requests
    tool_call, options = first
    assert {o.kind for o in options} >= {
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    }
    started = editor.of(sid, "tool_call")
    assert tool_call.tool_call_id == started[0].tool_call_id  # asked on the call it is about
    assert started[0].kind == "edit"
    assert started[0].content[0].type == "diff" and started[0].content[0].new_text == "rejected\n"
    statuses = [u.status for u in editor.of(sid, "tool_call_update")]
    assert statuses == ["failed", "completed"]
    assert "the user said no" in acp.requests[1].body["messages"][-1]["content"]


async def test_allow_always_is_remembered_for_the_session(acp: AcpLease, workspace: Path) -> None:
    acp.server.push(write("one.txt", "1\n"), Text("one"), write("two.txt", "2\n"), Text("two"))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    editor.answers = ["allow-always"]
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("one")), EXCHANGE_TIMEOUT)
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("two")), EXCHANGE_TIMEOUT)
    assert (workspace / "one.txt").read_text() == "1\n"
    assert (workspace / "two.txt").read_text() == "2\n"
    assert len(editor.permission_requests) == 1  # the second write did not ask


async def test_reject_always_refuses_the_same_call_without_asking_again(
    acp: AcpLease, workspace: Path
) -> None:
    acp.server.push(write("x.txt", "1\n"), Text("no"), write("x.txt", "1\n"), Text("still no"))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    editor.answers = ["reject-always"]
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("one")), EXCHANGE_TIMEOUT)
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("two")), EXCHANGE_TIMEOUT)
    assert not (workspace / "x.txt").exists()
    assert len(editor.permission_requests) == 1
    assert "rest of the session" in acp.requests[3].body["messages"][-1]["content"]


async def test_a_mode_set_by_the_editor_holds(acp: AcpLease, workspace: Path) -> None:
    acp.server.push(write("m.txt", "auto\n"), Text("done"))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    modes = session.modes
    assert modes is not None
    assert [m.id for m in modes.available_modes] == ["ask", "accept-edits", "plan", "full-auto"]
    await conn.set_session_mode(session_id=sid, mode_id="accept-edits")
    await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("go")), EXCHANGE_TIMEOUT)
    assert (workspace / "m.txt").read_text() == "auto\n"
    assert editor.permission_requests == []


async def test_an_editor_that_cannot_ask_refuses_the_call_and_the_turn_goes_on(
    acp: AcpLease, workspace: Path
) -> None:
    acp.server.push(write("e.txt", "1\n"), Text("could not write"))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    editor.answers = ["error"]
    done = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("w")), EXCHANGE_TIMEOUT)
    assert done.stop_reason == "end_turn" and not (workspace / "e.txt").exists()
    assert "could not write" in editor.text(sid)
    ended = editor.of(sid, "tool_call_update")
    assert [u.status for u in ended] == ["failed"]  # the call ended, refused
