"""Slash commands: the table (completion, /help, the palette read it) and what each one does."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui import lifecycle
from tui.host import Host

if TYPE_CHECKING:
    from tui.session_controller import SessionController

# The handlers import the screens and the agent's machinery where they use them: the table is
# read at start-up (completion, palette), the rest is not needed for the first frame.

Handler = Callable[[Host, str], Awaitable[None]]

# Said when a command needs the agent and there is none (no model configured).
NO_AGENT = "There is no model to work with yet (see the configuration help above)."
# Said when a command would change the conversation while something runs.
BUSY = "A request is running: wait for it, or press Esc to interrupt it."


@dataclass(frozen=True)
class SlashCommand:
    name: str  # without the slash
    args: str  # how its argument is written in help, "" when it takes none
    help: str
    run: Handler
    needs_agent: bool = True
    needs_quiet: bool = False  # refused while a turn or a fold runs

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()


def _controller(host: Host) -> SessionController:
    """The session controller; commands that use it run only once there is an agent."""
    assert host.controller is not None
    return host.controller


async def compact(host: Host, focus: str) -> None:
    from tui.tasks import run_compaction

    assert host.agent is not None
    host.start_work("compact", run_compaction(host, host.agent, "manual", focus or None))


async def fork(host: Host, _: str) -> None:
    from tui.tasks import run_fork

    host.start_work("fork", run_fork(host))


async def context(host: Host, _: str) -> None:
    from tui.context_report import context_report
    from tui.screens.context import ContextScreen

    assert host.agent is not None
    report = await asyncio.to_thread(context_report, host.agent)
    if report is None:
        await host.conversation.add_notice("this session has no compactor", "error")
        return
    host.status.context = report.gauge
    host.show_screen(ContextScreen(report))


async def chunks(host: Host, _: str) -> None:
    from tui.screens.chunks import ChunkBrowserScreen

    assert host.session is not None
    host.show_screen(ChunkBrowserScreen(host.session.archive))


async def sessions(host: Host, _: str) -> None:
    from sessions.store import list_sessions
    from tui.screens.sessions import SessionsScreen

    found = await asyncio.to_thread(list_sessions, host.workspace)
    current = host.session.id if host.session is not None else None
    chosen = await host.ask_screen(SessionsScreen(found, current))
    if chosen is not None and chosen != current:
        await resume(host, chosen)


async def resume(host: Host, wanted: str) -> None:
    from sessions.lock import SessionBusy
    from sessions.store import SessionError

    if not wanted:
        await sessions(host, "")
        return
    if host.working:  # a turn started while the sessions list was open
        host.notify(BUSY)
        return
    try:
        history, notes = await asyncio.to_thread(_controller(host).resume, wanted)
    except (SessionError, SessionBusy) as error:
        await host.conversation.add_notice(f"cannot resume: {error}", "error")
        return
    await lifecycle.show_session(host, history, notes, source="resume")


async def new(host: Host, _: str) -> None:
    await asyncio.to_thread(_controller(host).new)
    await lifecycle.show_session(host, [], source="clear")


async def model(host: Host, name: str) -> None:
    from tui import models

    if name:
        await models.use(host, models.typed(host, name), save=False)
    elif (picked := await models.pick(host)) is not None:
        await models.use(host, *picked)


async def undo(host: Host, arg: str) -> None:
    from tui.rewind_commands import undo as undo_last

    await undo_last(host, arg)


async def rewind(host: Host, arg: str) -> None:
    from tui.rewind_commands import rewind as rewind_to

    await rewind_to(host, arg)


async def mcp(host: Host, arg: str) -> None:
    from tui import mcp_servers

    await mcp_servers.show(host, arg)


async def show_help(host: Host, _: str) -> None:
    from tui.custom_commands import help_lines, refresh

    catalog = await refresh(host)  # the files as they are now
    custom = help_lines(catalog.commands)
    await host.conversation.add_markdown(help_text(custom), "help")


async def quit_app(host: Host, _: str) -> None:
    host.quit_safely()


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("compact", "[focus]", "fold the conversation now", compact, needs_quiet=True),
    SlashCommand("context", "", "what fills the context window", context),
    SlashCommand("chunks", "", "browse and search the archived chunks", chunks),
    SlashCommand(
        "fork", "", "continue in a new session carrying this one's summary", fork, needs_quiet=True
    ),
    SlashCommand(
        "sessions", "", "this workspace's sessions (Enter resumes one)", sessions, needs_quiet=True
    ),
    SlashCommand(
        "resume", "[id]", "switch to another session of this workspace", resume, needs_quiet=True
    ),
    SlashCommand("new", "", "start a new session", new, needs_quiet=True),
    SlashCommand(
        "undo", "", "undo the last request: its file changes and messages", undo, needs_quiet=True
    ),
    SlashCommand(
        "rewind",
        "[N [files|conversation|both]]",
        "go back to before an earlier request: files, conversation or both",
        rewind,
        needs_quiet=True,
    ),
    SlashCommand(
        "model",
        "[name]",
        "pick a model (found: provider keys, local servers), or switch to NAME",
        model,
        needs_agent=False,
        needs_quiet=True,
    ),
    SlashCommand("mcp", "", "MCP servers: their state, errors and tools", mcp),
    SlashCommand("help", "", "commands and keys", show_help, needs_agent=False),
    SlashCommand("quit", "", "leave pleat", quit_app, needs_agent=False),
)
BY_NAME = {c.name: c for c in COMMANDS}

KEYS = """\
| key | does |
|---|---|
| Enter | send the prompt (while pleat works: queue it, read at its next model call) |
| Shift+Enter, Ctrl+J, `\\` then Enter | a new line in the prompt |
| ↑ / ↓ | earlier prompts (from the first / last line) |
| ↑ in an empty prompt | take the newest queued prompt back, to edit or drop |
| `/` | commands; `@` a workspace file |
| Tab | take the highlighted suggestion |
| Esc | interrupt the running request (queued prompts come back into the prompt) |
| Shift+Tab | the next permission mode: ask, accept-edits, plan, full-auto |
| PgUp / PgDn | scroll the conversation |
| Ctrl+P | command palette |
| Ctrl+C twice, Ctrl+Q | quit |
"""


def help_text(custom: Sequence[str] = ()) -> str:
    """The commands (`custom`: the custom commands' section, tui.custom_commands) and keys."""
    lines = ["**Commands**", ""]
    lines += [f"- `{c.usage}`: {c.help}" for c in COMMANDS]
    lines += custom
    return "\n".join(lines) + "\n\n**Keys**\n\n" + KEYS


def parse(text: str) -> tuple[SlashCommand | None, str] | None:
    """(command, argument) when the text is a built-in slash command, (None, name) for another
    one ("/foo": a custom command, or unknown), None when it is a prompt (no slash, or a path
    such as /etc/hosts)."""
    if not text.startswith("/"):
        return None
    name, _, arg = text[1:].partition(" ")
    name = name.strip()
    if name in BY_NAME:
        return BY_NAME[name], arg.strip()
    if "/" in name or not name:
        return None
    return None, name


async def run(host: Host, command: SlashCommand, arg: str) -> None:
    """Run one command, unless it needs an agent and there is none (the app runs a command
    that changes the conversation only when nothing else runs: PleatApp.run_slash)."""
    if command.needs_agent and host.agent is None:
        await host.conversation.add_notice(NO_AGENT, "error")
        return
    try:
        await command.run(host, arg)
    except Exception as error:  # a bug: one red line, the log has the rest
        host.log.error(error)
        await host.conversation.add_notice(
            f"/{command.name} failed: {type(error).__name__}: {error}", "error"
        )
