"""An editor session's start and end: the editor's MCP servers beside the user's, started in
the background; the notes of the open said with the first prompt; SessionStart and SessionEnd
hooks; the servers and the session closed at the end."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from acp.schema import CurrentModeUpdate

if TYPE_CHECKING:
    from agent.acp.session import EditorSession
    from agent.mcp.server import McpServer


async def begin_session(editor: EditorSession, added: list[Any], *, resumed: bool) -> None:
    """After the open: say its notes with the next prompt, start the servers (the user's and
    the editor's), tell the editor of a mode change (a plan accepted), arm SessionStart."""
    from agent.turn.instruction_set import instruction_notes

    controller = editor.controller
    agent = controller.agent
    assert agent is not None
    editor.notes(list(controller.startup.notes), "error")
    editor.notes(list(controller.hooks.notes))
    controller.hooks.notes = []
    editor.notes(instruction_notes(agent.context.workspace))
    editor.notes(list(controller.added_problems), "error")
    if controller.sandbox.unenforced:
        editor.notes([controller.sandbox.describe()])
    servers = controller.mcp
    servers.add(added)
    servers.on_change(lambda server: _server_changed(editor, server))
    controller.mcp_opened = True
    await servers.start()
    permissions = controller.approvals.permissions
    permissions.on_change(lambda mode: _mode_changed(editor, mode))
    agent.hooks.session_started("resume" if resumed else "startup")


def _server_changed(editor: EditorSession, server: McpServer) -> None:
    if server.state == "failed":
        editor.notes([f"MCP server {server.name} failed: {server.error}"], "error")
    elif server.state == "running":
        editor.notes([f"MCP server {server.name}: {note}" for note in server.new_notes()])


def _mode_changed(editor: EditorSession, mode: str) -> None:
    """The mode changed inside pleat (a plan accepted): the editor's picker follows."""
    update = CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)
    task = asyncio.get_running_loop().create_task(editor.send(update))
    editor.background.add(task)
    task.add_done_callback(editor.background.discard)


async def end_session(editor: EditorSession) -> None:
    """The session closed (the connection ended, or it was loaded again): its SessionEnd hooks
    run, its servers stop, its journal is flushed and its lock released."""
    controller = editor.controller
    agent = controller.agent
    try:
        if agent is not None:
            await agent.hooks.session_end("other")
    finally:
        await controller.mcp.stop()
        await asyncio.to_thread(controller.close)
