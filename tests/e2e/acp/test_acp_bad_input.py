"""Bad input from the editor gets JSON-RPC errors and the agent stays up; stdout carries
JSON-RPC alone (read raw here, line by line, as an editor reads it). The raw lines and the
editor going away need a process of their own; requests the SDK sends, well formed but about
what is not there, share the worker's `pleat acp` (tests/e2e/acp/shared.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import TextContentBlock

from tests.e2e.acp.client import EXCHANGE_TIMEOUT, acp_args, acp_env
from tests.e2e.acp.shared import AcpLease
from tests.support.pleat_process import PLEAT
from tests.support.scripted_server import ScriptedServer, Text

# Each test starts `pleat acp` as a process or shares one (litellm's import included): not the
# fast set. The session-wide event loop: the shared process's connection lives on it.
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]


async def test_every_bad_line_is_answered_and_stdout_is_json_only(
    pleat_home: Path, workspace: Path
) -> None:
    await asyncio.to_thread(pleat_home.mkdir, parents=True, exist_ok=True)
    process = await asyncio.create_subprocess_exec(
        *PLEAT,
        "acp",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=acp_env(pleat_home),
    )
    assert process.stdin is not None and process.stdout is not None
    lines = [
        b"this is not json",
        b"[1, 2, 3]",
        b'{"id": 7, "method": "initialize"}',  # no "jsonrpc": "2.0"
        json.dumps({"jsonrpc": "2.0", "id": 8, "method": "no/such/method", "params": {}}).encode(),
        json.dumps(
            {"jsonrpc": "2.0", "id": 9, "method": "session/new", "params": {"cwd": 5}}
        ).encode(),
        json.dumps(
            {"jsonrpc": "2.0", "id": 10, "method": "session/new", "params": {"cwd": "relative"}}
        ).encode(),
        json.dumps(
            {"jsonrpc": "2.0", "id": 11, "method": "initialize", "params": {"protocolVersion": 1}}
        ).encode(),
    ]
    for line in lines:
        process.stdin.write(line + b"\n")
    await process.stdin.drain()
    answers: dict[Any, dict[str, Any]] = {}
    nulls: list[dict[str, Any]] = []
    while len(answers) < 5 or len(nulls) < 2:
        raw = await asyncio.wait_for(process.stdout.readline(), EXCHANGE_TIMEOUT)
        assert raw, "pleat acp closed its stdout"
        message = json.loads(raw)  # every line is JSON
        assert message["jsonrpc"] == "2.0"
        if message.get("id") is None:
            nulls.append(message)
        else:
            answers[message["id"]] = message
    process.stdin.close()
    assert await asyncio.wait_for(process.wait(), EXCHANGE_TIMEOUT) == 0
    assert sorted(m["error"]["code"] for m in nulls) == [-32700, -32600]
    assert answers[7]["error"]["code"] == -32600
    assert answers[8]["error"]["code"] == -32601  # method not found
    assert answers[9]["error"]["code"] == -32602  # invalid params
    assert answers[10]["error"]["code"] == -32602
    assert answers[11]["result"]["protocolVersion"] == 1  # still up after all of that


async def test_the_agent_stays_up_after_errors_and_answers_a_prompt(
    acp: AcpLease, workspace: Path
) -> None:
    acp.server.push(Text("fine"))
    conn, editor = acp.conn, acp.editor
    for bad in (
        conn.set_session_mode(session_id="missing", mode_id="ask"),
        conn.prompt(session_id="missing", prompt=[TextContentBlock(type="text", text="x")]),
    ):
        try:
            await asyncio.wait_for(bad, EXCHANGE_TIMEOUT)
        except RequestError as error:
            assert error.code == -32002
        else:
            raise AssertionError("a request to an unknown session succeeded")
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    try:
        await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
    except RequestError as error:
        assert error.code == -32602
    else:
        raise AssertionError("an unknown mode was taken")
    done = await asyncio.wait_for(
        conn.prompt(
            session_id=session.session_id, prompt=[TextContentBlock(type="text", text="hi")]
        ),
        EXCHANGE_TIMEOUT,
    )
    assert done.stop_reason == "end_turn" and "fine" in editor.text(session.session_id)


async def test_the_editor_going_away_mid_turn_ends_pleat_cleanly(
    server: ScriptedServer, pleat_home: Path, workspace: Path
) -> None:
    """stdin closed while a command runs: the command is killed, the session closed, and pleat
    exits 0; the model's control characters never reached the editor raw."""
    from tests.e2e.acp.test_acp_sessions import MARKER_SECONDS, sleepers, until
    from tests.support.scripted_server import ToolCalls

    server.push(
        ToolCalls([("run_command", {"command": f"sleep {MARKER_SECONDS}"})], text="go\x1b[2J")
    )
    await asyncio.to_thread(pleat_home.mkdir, parents=True, exist_ok=True)
    process = await asyncio.create_subprocess_exec(
        *PLEAT,
        *acp_args(server, "--yes"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=acp_env(pleat_home),
    )
    assert process.stdin is not None and process.stdout is not None

    def send(ident: int, method: str, params: dict[str, Any]) -> None:
        line = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        assert process.stdin is not None
        process.stdin.write(json.dumps(line).encode() + b"\n")

    async def answer(ident: int) -> tuple[dict[str, Any], list[str]]:
        seen: list[str] = []
        while True:
            raw = await asyncio.wait_for(process.stdout.readline(), EXCHANGE_TIMEOUT)  # type: ignore[union-attr]
            assert raw, "pleat acp closed its stdout"
            seen.append(raw.decode())
            message = json.loads(raw)
            if message.get("id") == ident:
                return message, seen

    send(1, "initialize", {"protocolVersion": 1})
    await answer(1)
    send(2, "session/new", {"cwd": str(workspace), "mcpServers": []})
    session_id = (await answer(2))[0]["result"]["sessionId"]
    send(3, "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": "x"}]})
    await process.stdin.drain()
    await until(lambda: bool(sleepers()), "the command to run")
    process.stdin.close()
    rest = await asyncio.wait_for(process.stdout.read(), EXCHANGE_TIMEOUT)
    assert await asyncio.wait_for(process.wait(), EXCHANGE_TIMEOUT) == 0
    await until(lambda: not sleepers(), "the command to end")
    shown = rest.decode()
    assert "go\\\\x1b[2J" in shown  # the escape as its text: JSON's "go\\x1b[2J"
    assert "\x1b" not in shown and "\\u001b" not in shown
