"""The terminal as a built-in command's front end (agent/slash/context.py FrontEnd): its
screens and pickers, the clipboard, quitting, and the conversation shown again after a rewind
or a switch."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal

from agent.slash.context import Replaced, RewindChoice
from sessions.lineage import Scope, Turn
from tui import lifecycle
from tui.host import BUSY, Host


class TerminalFront:
    """What only the terminal does for a command, on one app (its Host)."""

    interactive = True

    def __init__(self, host: Host) -> None:
        self.host = host

    async def review_summary(self, summary: str) -> str | None:
        from tui.summary_review import review_summary

        return await review_summary(self.host, summary)

    async def pick_turn(self, turns: list[Turn]) -> RewindChoice | None:
        from tui.screens.rewind import RewindScopeScreen, RewindScreen

        number = await self.host.ask_screen(RewindScreen(turns))
        if number is None:
            return None
        chosen: Scope | Literal["fold"] | None = await self.host.ask_screen(
            RewindScopeScreen(number, turns[number - 1])
        )
        return None if chosen is None else (number, chosen)

    async def overwrite(self, conflicts: list[str]) -> list[str] | None:
        from tui.screens.rewind import ChangedFilesScreen

        answer: list[str] | None = await self.host.ask_screen(ChangedFilesScreen(conflicts))
        return answer

    async def history_replaced(
        self, source: Replaced, request: str | None = None, notes: Sequence[str] = ()
    ) -> list[str]:
        host = self.host
        if source != "rewind":  # another session: its conversation, id, model, hooks
            history = {"fork": None, "clear": []}.get(
                source, list(host.agent.history) if host.agent else []
            )
            await lifecycle.show_session(host, history, list(notes), source=source)
            return []
        from agent.conversation.transcript import describer, entries_from_history

        agent, session = host.agent, host.session
        assert agent is not None and session is not None
        entries = entries_from_history(agent.history, describer(agent), session.archive)
        await host.conversation.reset(entries)
        lifecycle.show_tasks(host)  # the task list as the rewound history holds it
        await lifecycle.refresh_meter_soon(host)
        if not request:
            return []
        if host.prompt.text.strip():  # a draft is never overwritten: the request is one ↑ away
            host.prompt.remember(request)
            return ["your draft stays in the input; the request is one ↑ away"]
        host.prompt.value = request  # the request, to edit and send again
        return []

    async def pick_session(self) -> str | None:
        from tui.resume_picker import pick_session

        chosen = await pick_session(self.host)
        if chosen is not None and self.host.working:  # a turn started while the list was open
            self.host.notify(BUSY)
            return None
        return chosen

    async def show(self, what: str, arg: str) -> None:
        host = self.host
        if what == "context":
            from agent.slash.context_report import context_report
            from tui.screens.context import ContextScreen

            assert host.agent is not None
            report = await asyncio.to_thread(context_report, host.agent)
            if report is None:
                await host.conversation.add_notice("this session has no compactor", "error")
                return
            host.status.context = report.gauge
            host.show_screen(ContextScreen(report))
        elif what == "chunks":
            from tui.screens.chunks import ChunkBrowserScreen

            assert host.session is not None
            host.show_screen(ChunkBrowserScreen(host.session.archive))
        elif what == "model":
            from tui import models

            if arg:
                await models.use(host, models.typed(host, arg), save=False)
            elif (picked := await models.pick(host)) is not None:
                await models.use(host, *picked)
        elif what == "plugin":
            from tui.plugins import plugin

            await plugin(host, arg)
        elif what == "memory":
            from tui.memory_command import memory

            await memory(host, arg)
        elif what == "vim":
            from tui.preferences import vim

            await vim(host, arg)
        elif what == "theme":
            from tui.themes import theme

            await theme(host, host.prompt.app, arg)
        elif what == "help":
            from agent.commands.resolution import listing
            from tui.command_catalog import refresh
            from tui.command_help import help_text

            catalog = await refresh(host)  # the files as they are now
            agent = host.agent
            tools = agent.registry.names() if agent is not None else []
            text = help_text(listing(catalog.commands), host.rebound, tools)
            await host.conversation.add_markdown(text, "help")

    def copy(self, text: str) -> None:
        self.host.copy_to_clipboard(text)

    def quit(self) -> None:
        self.host.quit_safely()
