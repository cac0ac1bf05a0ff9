"""Slash commands: the table (completion, /help, the palette read it) and what each one does."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.llm import LLMError

if TYPE_CHECKING:
    from tui.app import PleatApp

# The handlers import the screens and the agent's machinery where they use them: the table is
# read at start-up (completion, palette), the rest is not needed for the first frame.

Handler = Callable[["PleatApp", str], Awaitable[None]]

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


async def compact(app: PleatApp, focus: str) -> None:
    from tui.tasks import run_compaction

    assert app.agent is not None
    app.start_work("compact", run_compaction(app, app.agent, "manual", focus or None))


async def fork(app: PleatApp, _: str) -> None:
    from tui.tasks import run_fork

    app.start_work("fork", run_fork(app))


async def context(app: PleatApp, _: str) -> None:
    from tui.context_report import context_report
    from tui.screens.context import ContextScreen

    assert app.agent is not None
    report = await asyncio.to_thread(context_report, app.agent)
    if report is None:
        await app.conversation.add_notice("this session has no compactor", "error")
        return
    app.status.context = report.gauge
    await app.push_screen(ContextScreen(report))


async def chunks(app: PleatApp, _: str) -> None:
    from tui.screens.chunks import ChunkBrowserScreen

    assert app.session is not None
    await app.push_screen(ChunkBrowserScreen(app.session.archive))


async def sessions(app: PleatApp, _: str) -> None:
    from sessions.store import list_sessions
    from tui.screens.sessions import SessionsScreen

    found = await asyncio.to_thread(list_sessions, app.workspace)
    current = app.session.id if app.session is not None else None
    chosen = await app.push_screen(SessionsScreen(found, current), wait_for_dismiss=True)
    if chosen is not None and chosen != current:
        await resume(app, chosen)


async def resume(app: PleatApp, wanted: str) -> None:
    from sessions.lock import SessionBusy
    from sessions.store import SessionError

    if not wanted:
        await sessions(app, "")
        return
    if app.busy:
        app.notify(BUSY)
        return
    try:
        history, notes = await asyncio.to_thread(app.sessions.resume, wanted)
    except (SessionError, SessionBusy) as error:
        await app.conversation.add_notice(f"cannot resume: {error}", "error")
        return
    app.approvals.always.clear()
    await app.session_switched(history, notes)


async def new(app: PleatApp, _: str) -> None:
    await asyncio.to_thread(app.sessions.new)
    app.approvals.always.clear()
    await app.session_switched([])


async def model(app: PleatApp, name: str) -> None:
    if not name:
        await app.conversation.add_notice(
            f"model: {app.status.model or 'none'} (switch with /model NAME, any litellm model)"
        )
        return
    try:
        await app.sessions.check_model(name)
    except LLMError as error:
        await app.conversation.add_notice(f"cannot switch model: {error.message}", "error")
        return
    app.sessions.set_model(name)
    app.status.model = name
    await app.conversation.add_notice(f"model: {name} (from the next request on)")
    await app.refresh_context_soon()


async def show_help(app: PleatApp, _: str) -> None:
    await app.conversation.add_markdown(help_text(), "help")


async def quit_app(app: PleatApp, _: str) -> None:
    app.quit_safely()


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
        "model", "[name]", "show or switch the model for the next requests", model, needs_quiet=True
    ),
    SlashCommand("help", "", "commands and keys", show_help, needs_agent=False),
    SlashCommand("quit", "", "leave pleat", quit_app, needs_agent=False),
)
BY_NAME = {c.name: c for c in COMMANDS}

KEYS = """\
| key | does |
|---|---|
| Enter | send the prompt |
| Shift+Enter, Ctrl+J, `\\` then Enter | a new line in the prompt |
| ↑ / ↓ | earlier prompts (from the first / last line) |
| `/` | commands; `@` a workspace file |
| Tab | take the highlighted suggestion |
| Esc | interrupt the running request |
| PgUp / PgDn | scroll the conversation |
| Ctrl+P | command palette |
| Ctrl+C twice, Ctrl+Q | quit |
"""


def help_text() -> str:
    lines = ["**Commands**", ""]
    lines += [f"- `{c.usage}`: {c.help}" for c in COMMANDS]
    return "\n".join(lines) + "\n\n**Keys**\n\n" + KEYS


def parse(text: str) -> tuple[SlashCommand | None, str] | None:
    """(command, argument) when the text is a slash command, (None, name) for an unknown one
    ("/foo"), None when it is a prompt (no slash, or a path such as /etc/hosts)."""
    if not text.startswith("/"):
        return None
    name, _, arg = text[1:].partition(" ")
    name = name.strip()
    if name in BY_NAME:
        return BY_NAME[name], arg.strip()
    if "/" in name or not name:
        return None
    return None, name


async def run(app: PleatApp, command: SlashCommand, arg: str) -> None:
    """Run one command, unless it cannot run now (no agent, or something is running)."""
    if command.needs_agent and app.agent is None:
        await app.conversation.add_notice(NO_AGENT, "error")
        return
    if command.needs_quiet and app.busy:
        app.notify(BUSY)
        return
    try:
        await command.run(app, arg)
    except Exception as error:  # a bug: one red line, the log has the rest
        app.log.error(error)
        await app.conversation.add_notice(
            f"/{command.name} failed: {type(error).__name__}: {error}", "error"
        )
