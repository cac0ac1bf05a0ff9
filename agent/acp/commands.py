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

from agent.terminal_text import visible

if TYPE_CHECKING:
    from acp.connection import StreamEvent

    from agent.acp.session import EditorSession
    from agent.events import SessionEvent
    from agent.images.parts import Images

Run = Callable[[str, "Images"], AsyncIterator["SessionEvent"]]


def available_commands(editor: EditorSession) -> list[AvailableCommand]:
    """The built-ins an editor can run, then the command files (the user's, the project's,
    the plugins'), each with its argument hint."""
    from agent.commands.builtin import BUILTIN
    from agent.commands.catalog import CommandCatalog

    listed = [
        AvailableCommand(name=row.name, description=row.help, input=_hint(row.args))
        for row in BUILTIN
        if row.headless
    ]
    controller = editor.controller
    catalog = CommandCatalog(
        controller.workspace, plugin_sources=controller.plugins.command_sources()
    )
    catalog.refresh()
    taken = {command.name for command in listed}
    for command in catalog.commands:
        if command.name in taken:  # a file of a built-in's name runs instead of it
            listed = [c for c in listed if c.name != command.name]
        listed.append(
            AvailableCommand(
                name=command.name,
                description=visible(command.description),
                input=_hint(command.argument_hint),
            )
        )
    return listed


def _hint(text: str) -> AvailableCommandInput | None:
    if not text:
        return None
    return AvailableCommandInput(root=UnstructuredCommandInput(hint=visible(text)))


def announce_after_new_session(
    sessions: Mapping[str, EditorSession],
) -> Callable[[StreamEvent], None]:
    """An observer of the connection: once a session/new answer has gone out, the session's
    commands follow (an editor reads them only for a session it knows)."""

    def observe(event: StreamEvent) -> None:
        result = event.message.get("result")
        if event.direction.value != "outgoing" or not isinstance(result, dict):
            return
        editor = sessions.get(str(result.get("sessionId", "")))
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
    """What a prompt runs: `/name args` a built-in or a command file, anything else a turn."""

    async def run(text: str, images: Images) -> AsyncIterator[SessionEvent]:
        agent = editor.controller.agent
        assert agent is not None
        stripped = text.strip()
        if stripped.startswith("/compact") and stripped[8:9] in ("", " ", "\n"):
            from agent.turn.folds import compact_argument

            _, focus = compact_argument(stripped[8:].strip())
            async for event in agent.compact(focus=focus):
                yield event
            return
        async for event in agent.run_turn(text, images):
            yield event

    return run
