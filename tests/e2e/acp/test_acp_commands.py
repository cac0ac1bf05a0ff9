"""Slash commands from the editor run as in every front end: a built-in's body answers as the
agent's message, a command file's prompt runs as a turn, a command of the terminal alone is
refused in one line, and the list the editor shows has the same split. The test shares the
workers' `pleat acp` (tests/e2e/acp/shared.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import TextContentBlock

from tests.e2e.acp.client import EXCHANGE_TIMEOUT
from tests.e2e.acp.shared import AcpLease
from tests.support.git_support import git_repo
from tests.support.scripted_server import Text

# `pleat acp` as a process, shared (litellm's import included): not the fast set. The
# session-wide event loop: the shared process's connection lives on it.
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="session")]


def text(value: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=value)]


async def test_built_ins_and_command_files_run_from_the_editor(
    acp: AcpLease, workspace: Path
) -> None:
    # git finds no repository above the tests' temporary directory: the shared process's
    # environment says so (GIT_CEILING_DIRECTORIES), as no_git_above does for a test's own.
    git_repo(workspace, {"README.md": b"hello\n"})
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: say hi\n---\nSay hi to $ARGUMENTS.")
    acp.server.push(Text("Hi, Ada!"))
    conn, editor = acp.conn, acp.editor
    session = await asyncio.wait_for(conn.new_session(cwd=str(workspace)), EXCHANGE_TIMEOUT)
    sid = session.session_id
    await editor.wait_for(lambda: "available_commands_update" in editor.kinds(sid), "list")
    listed = editor.of(sid, "available_commands_update")[0]
    names = {c.name for c in listed.available_commands}
    assert {"compact", "diff", "undo", "greet"} <= names
    assert not {"quit", "model", "new", "resume", "fork", "copy"} & names

    async def say(line: str) -> str:
        before = len(editor.text(sid))
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text(line)), EXCHANGE_TIMEOUT)
        return editor.text(sid)[before:]

    assert "workspace" in (await say("/sandbox")).lower()
    assert "works in pleat's terminal UI only" in await say("/model")
    requests = len(acp.requests)
    assert "Hi, Ada!" in await say("/greet Ada")
    assert len(acp.requests) == requests + 1
    sent = acp.requests[-1].body["messages"][-1]["content"]
    assert "Say hi to Ada." in (sent if isinstance(sent, str) else str(sent))
