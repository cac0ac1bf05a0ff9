"""Sessions across front ends and the session's work from the editor: a session made headless
opens in the editor with its whole conversation; the commands list follows session/new and
/compact's fold is visible; session/cancel stops a long command; the editor's own MCP server is
used. The tests share the worker's `pleat acp` (tests/e2e/acp/shared.py), each with its own
sessions in its own workspace, but the one about `--yes`."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import McpServerStdio, TextContentBlock

from tests.e2e.acp.client import EXCHANGE_TIMEOUT, pleat_acp
from tests.e2e.acp.shared import AcpLease, SharedAcp
from tests.support.mcp_support import ECHO_SERVER
from tests.support.pleat_process import headless_args, pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import summary_reply

# `pleat acp` as a process, shared (litellm's import included): not the fast set. The
# session-wide event loop: the shared process's connection lives on it.
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]

# Long exchanges before /compact: enough that a fold leaves the context smaller than it was.
EXCHANGES = 4
# How long the command a cancel must stop sleeps: a number no other process on the machine
# sleeps for, so the test finds its process by it (the sandbox's pid namespace hides its pid).
MARKER_SECONDS = 3131


def sleepers() -> list[str]:
    """The running processes of `sleep MARKER_SECONDS` (zombies, ended, do not count)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            words = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if words[:2] == [b"sleep", str(MARKER_SECONDS).encode()] and state != "Z":
            found.append(proc.name)
    return found


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(int(EXCHANGE_TIMEOUT / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def text(value: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=value)]


@pytest.fixture
def headless_session(shared_acp: SharedAcp, workspace: Path) -> str:
    """A session made by a headless run in `workspace`, in the shared process's home (run in
    this process: a sync fixture, no event loop running): its id."""
    (workspace / "plan.md").write_text("step one\n")
    server = shared_acp.server
    server.push(ToolCalls([("read_file", {"path": "plan.md"})]), Text("It has one step."))
    args = headless_args(workspace, server, "-p", "read plan.md", "--output-format", "json")
    done = pleat(*args, env={"PLEAT_HOME": str(shared_acp.home)})
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["session_id"])


async def test_a_session_made_headless_loads_with_its_whole_conversation(
    headless_session: str, acp: AcpLease, workspace: Path
) -> None:
    conn, editor, sid = acp.conn, acp.editor, headless_session
    await asyncio.wait_for(conn.load_session(cwd=str(workspace), session_id=sid), EXCHANGE_TIMEOUT)
    replayed = [(u.session_update, u) for s, u in editor.updates if s == sid]  # before the answer
    await editor.wait_for(
        lambda: "available_commands_update" in editor.kinds(sid), "the commands after load"
    )
    kinds = [kind for kind, _ in replayed]
    assert kinds[:3] == ["user_message_chunk", "tool_call", "agent_message_chunk"]
    # The commands list is sent beside the load's answer: before it too, once the replay is out.
    assert kinds[3:] in ([], ["available_commands_update"])
    assert replayed[0][1].content.text == "read plan.md"
    call = replayed[1][1]
    assert (call.kind, call.status) == ("read", "completed")
    assert "step one" in call.content[0].content.text
    assert replayed[2][1].content.text == "It has one step."


async def test_loading_an_unknown_session_is_an_error_and_the_agent_stays_up(
    acp: AcpLease, workspace: Path
) -> None:
    acp.server.push(Text("still here"))
    conn, editor = acp.conn, acp.editor
    try:
        await conn.load_session(cwd=str(workspace), session_id="no-such-session")
    except RequestError as error:
        assert error.code == -32002  # resource not found
    else:
        raise AssertionError("an unknown session loaded")
    try:
        await conn.prompt(session_id="no-such-session", prompt=text("hi"))
    except RequestError as error:
        assert error.code == -32002
    else:
        raise AssertionError("a prompt to an unknown session ran")
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    await asyncio.wait_for(
        conn.prompt(session_id=session.session_id, prompt=text("hi")), EXCHANGE_TIMEOUT
    )
    assert "still here" in editor.text(session.session_id)


async def test_the_commands_follow_a_new_session_and_a_fold_is_visible(
    acp: AcpLease, workspace: Path
) -> None:
    commands_dir = workspace / ".claude" / "commands"
    commands_dir.mkdir(parents=True)
    (commands_dir / "standup.md").write_text("---\ndescription: summarize my day\n---\nSummarize.")
    long_answer = "hello " * 2000  # folds of these free room: the usage goes down
    acp.server.push(*[Text(long_answer)] * EXCHANGES, summary_reply("greetings", "said hello"))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    await editor.wait_for(
        lambda: "available_commands_update" in editor.kinds(sid), "the commands list"
    )
    listed = editor.of(sid, "available_commands_update")[0]
    names = {c.name: c.description for c in listed.available_commands}
    assert "compact" in names and names["standup"] == "summarize my day"
    for _ in range(EXCHANGES):
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("hi")), EXCHANGE_TIMEOUT)
    before = [u.used for u in editor.of(sid, "usage_update")][-1]
    done = await asyncio.wait_for(
        conn.prompt(session_id=sid, prompt=text("/compact")), EXCHANGE_TIMEOUT
    )
    assert done.stop_reason == "end_turn"
    calls = [u for s, u in editor.updates if s == sid and hasattr(u, "tool_call_id")]
    fold = [u for u in calls if u.tool_call_id.startswith("fold-")]
    assert [u.session_update for u in fold] == ["tool_call", "tool_call_update"]
    assert fold[1].status == "completed"
    assert "chunk 1" in fold[1].content[0].content.text
    after = [u.used for u in editor.of(sid, "usage_update")][-1]
    assert after < before


async def test_cancel_stops_a_long_command_and_the_turn(acp: AcpLease, workspace: Path) -> None:
    acp.server.push(ToolCalls([("run_command", {"command": f"sleep {MARKER_SECONDS}"})]))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    editor.answers = ["allow"]  # sandboxed, the command does not ask; with no sandbox, allowed
    prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=text("wait")))
    await editor.wait_for(lambda: "tool_call" in editor.kinds(sid), "the command's call")
    await until(lambda: bool(sleepers()), "the command to run")
    await conn.cancel(session_id=sid)
    done = await asyncio.wait_for(prompt, EXCHANGE_TIMEOUT)
    assert done.stop_reason == "cancelled"
    await until(lambda: not sleepers(), "the command to end")  # its process group killed
    acp.server.push(Text("after the cancel"))
    again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("hi")), EXCHANGE_TIMEOUT)
    assert again.stop_reason == "end_turn"
    assert "after the cancel" in editor.text(sid)
    ended = editor.of(sid, "tool_call_update")
    assert ended and ended[0].status == "failed"  # the call answered "cancelled"


async def test_the_editors_stdio_mcp_server_is_used(
    server: ScriptedServer, pleat_home: Path, workspace: Path
) -> None:
    """A process of its own: `--yes` (the tool runs without asking) is a flag of the process."""
    server.push(ToolCalls([("mcp__echo__echo", {"text": "from the editor"})]), Text("done"))
    echo = McpServerStdio(name="echo", command=sys.executable, args=[str(ECHO_SERVER)], env=[])
    async with pleat_acp(server, pleat_home, "--yes") as (conn, editor, _):
        session = await asyncio.wait_for(
            conn.new_session(cwd=str(workspace), mcp_servers=[echo]), EXCHANGE_TIMEOUT
        )
        await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("echo")), EXCHANGE_TIMEOUT
        )
    offered = {t["function"]["name"] for t in server.requests[0].body.get("tools", [])}
    assert "mcp__echo__echo" in offered
    ended = [u for _, u in editor.updates if u.session_update == "tool_call_update"]
    assert ended[0].status == "completed"
    assert "echo: from the editor" in ended[0].content[0].content.text


async def test_the_editor_lists_this_workspaces_sessions(acp: AcpLease, workspace: Path) -> None:
    """Listed by workspace: the other tests' sessions in the shared home are other workspaces'."""
    acp.server.push(Text("one"))
    conn = acp.conn
    first = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    await asyncio.wait_for(
        conn.prompt(session_id=first.session_id, prompt=text("the first request")),
        EXCHANGE_TIMEOUT,
    )
    listed = await asyncio.wait_for(conn.list_sessions(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    by_id = {s.session_id: s for s in listed.sessions}
    assert by_id[first.session_id].title == "the first request"
    assert by_id[first.session_id].cwd == str(workspace)


async def test_cancel_while_the_first_prompt_asks_about_the_project_stops_it(
    acp: AcpLease, workspace: Path
) -> None:
    echo = {"command": sys.executable, "args": [str(ECHO_SERVER)]}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"echo": echo}}))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    editor.hold = asyncio.Event()
    first = asyncio.create_task(conn.prompt(session_id=sid, prompt=text("first")))
    await editor.wait_for(lambda: bool(editor.permission_requests), "the project question")
    try:
        await conn.prompt(session_id=sid, prompt=text("second"))
    except RequestError as error:
        assert "a prompt is running" in str(error.data)
    else:
        raise AssertionError("a second prompt ran beside the first")
    await conn.cancel(session_id=sid)
    editor.hold.set()  # the editor answers its open question "cancelled", as ACP asks
    done = await asyncio.wait_for(first, EXCHANGE_TIMEOUT)
    assert done.stop_reason == "cancelled"
    assert acp.requests == []  # neither prompt reached the model
