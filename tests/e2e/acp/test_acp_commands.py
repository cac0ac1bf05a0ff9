"""Slash commands from the editor run as in every front end: a built-in's body answers as the
agent's message, a command file's prompt runs as a turn, a command of the terminal alone is
refused in one line, and the list the editor shows has the same split."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import TextContentBlock

from tests.e2e.acp.client import EXCHANGE_TIMEOUT, pleat_acp
from tests.support.git_support import git_repo
from tests.support.scripted_server import ScriptedServer, Text

# Each test starts `pleat acp` as a process (litellm's import included): not the fast set.
pytestmark = pytest.mark.slow


def text(value: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=value)]


async def test_built_ins_and_command_files_run_from_the_editor(
    server: ScriptedServer, pleat_home: Path, workspace: Path, no_git_above: None
) -> None:
    git_repo(workspace, {"README.md": b"hello\n"})
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: say hi\n---\nSay hi to $ARGUMENTS.")
    server.push(Text("Hi, Ada!"))
    async with pleat_acp(server, pleat_home) as (conn, editor, _):
        session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
        sid = session.session_id
        await editor.wait_for(lambda: "available_commands_update" in editor.kinds(sid), "list")
        listed = next(
            u for _, u in editor.updates if u.session_update == "available_commands_update"
        )
        names = {c.name for c in listed.available_commands}
        assert {"compact", "diff", "undo", "greet"} <= names
        assert not {"quit", "model", "new", "resume", "fork", "copy"} & names

        async def say(line: str) -> str:
            before = len(editor.text(sid))
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text(line)), EXCHANGE_TIMEOUT)
            return editor.text(sid)[before:]

        assert "workspace" in (await say("/sandbox")).lower()
        assert "works in pleat's terminal UI only" in await say("/model")
        requests = len(server.requests)
        assert "Hi, Ada!" in await say("/greet Ada")
    assert len(server.requests) == requests + 1
    sent = server.requests[-1].body["messages"][-1]["content"]
    assert "Say hi to Ada." in (sent if isinstance(sent, str) else str(sent))
