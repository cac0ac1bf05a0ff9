"""An editor session's start and end, on the session runtime's lifecycle (agent/session/): the
editor's MCP servers beside the user's, the project's files asked about through the editor, the
notes of the open said with the first prompt, SessionStart armed, and everything closed at the
end."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from acp.schema import CurrentModeUpdate

from agent.session import lifecycle as life
from agent.session.servers import start_servers

if TYPE_CHECKING:
    from agent.acp.session import EditorSession
    from agent.mcp.settings import ServerSettings


async def begin_session(
    editor: EditorSession, added: list[ServerSettings], repairs: list[str], *, resumed: bool
) -> None:
    """After the open: its notes kept for the next prompt, the editor's servers kept for the
    start, the editor's mode picker kept in step (a plan accepted changes the mode),
    SessionStart armed, and litellm warmed up in the background."""
    controller = editor.controller
    agent = controller.agent
    assert agent is not None
    source = "resume" if resumed else "startup"
    editor.pending.extend(life.opened_notices(controller, repairs, source))
    editor.pending.extend(life.rule_notices(agent))
    life.arm_session_start(controller, source)
    editor.client_servers = tuple(added)
    editor.starter = lambda: start_run_parts(editor)
    controller.approvals.permissions.on_change(lambda mode: _mode_changed(editor, mode))
    if not controller.warm:  # litellm imported while the user types the first prompt
        _spawn(editor, _warm_up(editor))


async def _warm_up(editor: EditorSession) -> None:
    await editor.controller.warm_up()
    editor.controller.warm = True


async def start_run_parts(editor: EditorSession) -> None:
    """At the first prompt (the editor knows the session by then, so it can be asked): the
    project's files asked about, then the servers started (the .mcp.json asked about too) and
    awaited, so the first request has their tools; what they say joins the pending notes."""
    controller = editor.controller
    asking = controller.approvals.asking
    editor.pending.extend(await life.approve_project_files(controller, asking))
    say = editor.pending.append
    await start_servers(controller, asking, say, _spawner(editor), editor.client_servers)
    await controller.mcp.settled()


def _spawner(editor: EditorSession) -> Any:
    def spawn(work: Coroutine[Any, Any, None]) -> None:
        _spawn(editor, work)

    return spawn


def _spawn(editor: EditorSession, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    task = asyncio.get_running_loop().create_task(work)
    editor.background.add(task)
    task.add_done_callback(editor.background.discard)
    return task


def _mode_changed(editor: EditorSession, mode: str) -> None:
    """The mode changed inside pleat (a plan accepted): the editor's picker follows."""
    update = CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)
    _spawn(editor, editor.send(update))


async def end_session(editor: EditorSession) -> None:
    """The session closed (the connection ended, or it was loaded again): its SessionEnd hooks,
    its servers stopped, its journal flushed and its lock released."""
    for task in list(editor.background):
        task.cancel()
    await life.close(editor.controller)
