"""Slash commands from the editor: the list it offers (available_commands_update, sent once the
session/new answer is out), and what a prompt runs: a built-in, a command file, or a turn."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    UnstructuredCommandInput,
)

from agent.acp.front import EditorFront
from agent.events import CommandOutput, Notice
from agent.slash.context import CommandContext, Refused
from agent.slash.custom import expand_command
from agent.slash.dispatch import run_builtin, typed_builtin
from agent.terminal_text import visible

if TYPE_CHECKING:
    from acp.connection import StreamEvent

    from agent.acp.session import EditorSession
    from agent.commands.builtin import Builtin
    from agent.commands.catalog import CustomCommand
    from agent.events import SessionEvent
    from agent.images.parts import Images

Run = Callable[[str, "Images"], AsyncIterator["SessionEvent"]]


def available_commands(editor: EditorSession) -> list[AvailableCommand]:
    """The built-ins an editor runs (their rows say: agent/commands/builtin.py `editor`), then
    the command files (the user's, the project's, the plugins'), each with its argument hint; a
    file of a built-in's name is listed instead of the built-in, as it is what runs."""
    from agent.commands.builtin import BUILTIN
    from agent.commands.catalog import CommandCatalog

    controller = editor.controller
    catalog = CommandCatalog(
        controller.workspace, plugin_sources=controller.plugins.command_sources()
    )
    catalog.refresh()
    files = {command.name: command for command in catalog.commands}
    listed = [
        AvailableCommand(name=row.name, description=row.help, input=_hint(row.args))
        for row in BUILTIN
        if row.editor and row.name not in files
    ]
    listed += [
        AvailableCommand(
            name=command.name,
            description=visible(command.description),
            input=_hint(command.argument_hint),
        )
        for command in files.values()
    ]
    return listed


def _hint(text: str) -> AvailableCommandInput | None:
    if not text:
        return None
    return AvailableCommandInput(root=UnstructuredCommandInput(hint=visible(text)))


def announce_after_new_session(
    sessions: Mapping[str, EditorSession],
) -> Callable[[StreamEvent], None]:
    """An observer of the connection: once a session/new or session/load answer has gone out,
    the session's commands follow (an editor reads them only for a session it knows). A load's
    answer names no session: its request's id says which it was."""
    loading: dict[object, str] = {}

    def observe(event: StreamEvent) -> None:
        message = event.message
        if event.direction.value == "incoming":
            params = message.get("params")
            if message.get("method") == "session/load" and isinstance(params, dict):
                loading[message.get("id")] = str(params.get("sessionId", ""))
            return
        if "result" not in message and "error" not in message:
            return
        result = message.get("result")
        session_id = loading.pop(message.get("id"), None)
        if session_id is None and isinstance(result, dict):
            session_id = str(result.get("sessionId", ""))
        editor = sessions.get(session_id or "") if "result" in message else None
        if editor is not None:
            task = asyncio.get_running_loop().create_task(announce(editor))
            editor.background.add(task)
            task.add_done_callback(editor.background.discard)

    return observe


async def announce(editor: EditorSession) -> None:
    commands = await asyncio.to_thread(available_commands, editor)
    update = AvailableCommandsUpdate(
        session_update="available_commands_update", available_commands=commands
    )
    await editor.send(update)


def runner(editor: EditorSession) -> Run:
    """What a prompt runs: `/name args` a built-in (the one table's body, as every front end
    runs it) or a command file's expanded prompt; anything else is a turn."""

    async def run(text: str, images: Images) -> AsyncIterator[SessionEvent]:
        controller = editor.controller
        agent, session = controller.agent, controller.session
        assert agent is not None and session is not None
        line = text.strip()
        if line.startswith("/"):
            sources = controller.plugins.command_sources()
            found = await asyncio.to_thread(typed_builtin, controller.workspace, line, sources)
            if found is not None:
                command, arg = found
                refusal = editor_refusal(editor, command)
                if refusal is not None:
                    yield CommandOutput(refusal, failed=True)
                    return
                ctx = CommandContext(
                    controller.workspace, EditorFront(), agent, session, controller, typed=line
                )
                async for event in run_builtin(ctx, command, arg):
                    yield event
                return
            custom = await asyncio.to_thread(command_file, editor, line)
            if custom is not None:
                async for event in run_command_file(editor, custom, line):
                    yield event
                return
        async for event in agent.run_turn(text, images):
            yield event

    return run


def editor_refusal(editor: EditorSession, command: Builtin) -> str | None:
    """Why the editor cannot run this built-in (None: it can)."""
    if not command.editor:
        return (
            f"/{command.name} works in pleat's terminal UI only (the editor opens sessions and "
            "shows its own screens)"
        )
    if command.name in ("undo", "rewind") and editor.files is not None:
        return (
            f"/{command.name} would write files on disk behind the editor, which holds pleat's "
            "edits in its buffers: undo them in the editor"
        )
    return None


def command_file(editor: EditorSession, line: str) -> CustomCommand | None:
    """The command file `/name` names, if any (read now: a file changed since is read again)."""
    from agent.commands.catalog import CommandCatalog, CustomCommand, invocation
    from agent.commands.resolution import resolve

    found = invocation(line)
    if found is None:
        return None
    controller = editor.controller
    catalog = CommandCatalog(
        controller.workspace, plugin_sources=controller.plugins.command_sources()
    )
    catalog.refresh()
    command = resolve(found[0], catalog)
    return command if isinstance(command, CustomCommand) else None


async def run_command_file(
    editor: EditorSession, command: CustomCommand, line: str
) -> AsyncIterator[SessionEvent]:
    """The turn a command file's prompt starts (its images those its arguments name), after a
    line saying which file it is; a prompt that cannot be expanded is refused in one line."""
    from agent.commands.catalog import invocation
    from agent.images.prompt import attach_images

    agent = editor.controller.agent
    assert agent is not None
    found = invocation(line)
    arguments = found[1] if found is not None else ""
    try:
        custom = expand_command(agent, command, line, arguments)
    except Refused as error:
        yield CommandOutput(str(error), failed=True)
        return
    yield Notice(f"/{command.name}: {custom.said}")
    for note in custom.notes:
        yield Notice(f"/{command.name}: {note}")
    attached = await attach_images(custom.images, agent.context.workspace, agent.attachments)
    for note in attached.notes:
        yield Notice(note)
    async for event in agent.run_turn(custom.text, attached.images, custom.meta):
        yield event
