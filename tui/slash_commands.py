"""The built-in slash commands in the TUI: what each one does (its row is in the one table,
agent/commands/builtin.py, which completion, /help and the palette read), which command a typed
line names (agent/commands/resolution.py decides between a command file and a built-in), and
running one."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from agent.commands.builtin import BUILTIN_NAMESPACE, BY_NAME, NAMESPACE_MARK, Builtin
from tui import lifecycle
from tui.host import BUSY, Host
from tui.keys import key_help

if TYPE_CHECKING:
    from agent.commands.catalog import CustomCommand
    from agent.commands.resolution import Listed
    from agent.session.runtime import SessionController

# The handlers import the screens and the agent's machinery where they use them: the table is
# read at start-up (completion, palette), the rest is not needed for the first frame.

Handler = Callable[[Host, str], Awaitable[None]]

# Said when a command needs the agent and there is none (no model configured).
NO_AGENT = "There is no model to work with yet (see the configuration help above)."
# A typed slash command: its name, then (after whitespace, a newline too) its argument.
TYPED = re.compile(r"/(\S*)\s*(.*)", re.DOTALL)
# What a prompt `# note` runs: /memory's built-in, whatever command files exist.
MEMORY_NOTE = f"{BUILTIN_NAMESPACE}{NAMESPACE_MARK}memory"
# The /help line after the built-ins: how a built-in is reached when a file takes its name.
QUALIFIED_HELP = (
    f"Every built-in also answers to `/{BUILTIN_NAMESPACE}{NAMESPACE_MARK}NAME`: a command file "
    "of a built-in's name is what `/NAME` runs, the built-in staying "
    f"`/{BUILTIN_NAMESPACE}{NAMESPACE_MARK}NAME` (`/help` and `/quit` are always pleat's)."
)


def _controller(host: Host) -> SessionController:
    """The session controller; commands that use it run only once there is an agent."""
    assert host.controller is not None
    return host.controller


async def compact(host: Host, arg: str) -> None:
    from agent.turn.folds import compact_argument
    from tui.summary_review import review_summary
    from tui.tasks import run_compaction

    assert host.agent is not None
    preview, focus = compact_argument(arg)
    review = (lambda summary: review_summary(host, summary)) if preview else None
    host.start_work("compact", run_compaction(host, host.agent, "manual", focus, review=review))


async def goal(host: Host, text: str) -> None:
    from tui.goal_command import goal as set_or_show

    await set_or_show(host, text)


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
    from tui.resume_picker import pick_session

    chosen = await pick_session(host)
    if chosen is not None and chosen != (host.session.id if host.session else None):
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


async def rename(host: Host, name: str) -> None:
    from tui.resume_picker import rename as name_session

    await name_session(host, name)


async def copy(host: Host, arg: str) -> None:
    from tui import take_away

    await take_away.copy(host, arg)


async def export(host: Host, file_name: str) -> None:
    from tui import take_away

    await take_away.export(host, file_name)


async def diff(host: Host, arg: str) -> None:
    from tui import take_away

    await take_away.diff(host, arg)


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


async def plugin(host: Host, arg: str) -> None:
    from tui.plugins import plugin as run_plugin

    await run_plugin(host, arg)


async def shells(host: Host, arg: str) -> None:
    from tui.shells import shells as list_shells

    await list_shells(host, arg)


async def sandbox(host: Host, _: str) -> None:
    from agent.permissions.sandbox_report import sandbox_report

    assert host.agent is not None
    report = sandbox_report(host.agent.context.sandbox, host.agent.permissions)
    await host.conversation.add_notice(report)


async def add_dir(host: Host, arg: str) -> None:
    from agent.session.add_dir import add_dir as add_or_list

    assert host.agent is not None
    line, error = await asyncio.to_thread(add_or_list, host.agent, arg, host.workspace)
    if error:
        await host.conversation.add_notice(line, "error")
    else:
        await host.conversation.add_notice(line)


async def skills(host: Host, _: str) -> None:
    from agent.skills.catalog import listing_lines
    from agent.skills.files import load_skills

    found = await asyncio.to_thread(load_skills, host.workspace)
    await host.conversation.add_notice("\n".join(listing_lines(found)))


async def memory(host: Host, arg: str) -> None:
    from tui.memory_command import memory as instruction_files

    await instruction_files(host, arg)


async def init(host: Host, focus: str) -> None:
    from tui.builtin_prompts import run_prompt

    await run_prompt(host, "init", focus)


async def review(host: Host, focus: str) -> None:
    from tui.builtin_prompts import run_prompt

    await run_prompt(host, "review", focus)


async def show_help(host: Host, _: str) -> None:
    from agent.commands.resolution import listing
    from tui.command_catalog import refresh

    catalog = await refresh(host)  # the files as they are now
    await host.conversation.add_markdown(help_text(listing(catalog.commands)), "help")


async def quit_app(host: Host, _: str) -> None:
    host.quit_safely()


# What each built-in does in the TUI, by its name in the table (agent/commands/builtin.py).
HANDLERS: dict[str, Handler] = {
    "compact": compact,
    "goal": goal,
    "context": context,
    "chunks": chunks,
    "fork": fork,
    "sessions": sessions,
    "resume": resume,
    "rename": rename,
    "new": new,
    "undo": undo,
    "rewind": rewind,
    "model": model,
    "mcp": mcp,
    "plugin": plugin,
    "shells": shells,
    "sandbox": sandbox,
    "add-dir": add_dir,
    "skills": skills,
    "memory": memory,
    "init": init,
    "review": review,
    "copy": copy,
    "export": export,
    "diff": diff,
    "help": show_help,
    "quit": quit_app,
}
__all__ = ["BY_NAME", "HANDLERS", "help_text", "parse", "resolve", "run"]


def help_text(rows: Sequence[Listed] | None = None) -> str:
    """The commands (`rows`: agent/commands/resolution.listing; None: the built-ins alone) and
    keys."""
    from agent.commands.resolution import listing
    from tui.command_catalog import builtin_help_line, help_lines

    listed = listing(()) if rows is None else rows
    lines = ["**Commands**", ""]
    lines += [builtin_help_line(row) for row in listed if isinstance(row.command, Builtin)]
    lines += ["", QUALIFIED_HELP]
    lines += help_lines([row for row in listed if not isinstance(row.command, Builtin)])
    return "\n".join(lines) + "\n\n**Keys**\n\n" + key_help()


def parse(text: str) -> tuple[str, str] | None:
    """(name, argument) of a slash command as typed, None when the text is a prompt (no slash,
    or a path such as /etc/hosts). A `# note` is /memory's built-in: it adds the note, after
    asking. Which command the name runs is resolve()'s."""
    if text.startswith("#"):
        return MEMORY_NOTE, text
    typed = TYPED.fullmatch(text)
    if typed is None or not typed.group(1) or "/" in typed.group(1):
        return None
    return typed.group(1), typed.group(2).strip()


async def resolve(host: Host, name: str) -> Builtin | CustomCommand | None:
    """What `/name` runs (agent/commands/resolution.py): the command files are read again first
    unless the name always runs a built-in (`/pleat:review`, `/help`, `/quit`)."""
    from agent.commands.resolution import fixed_builtin
    from agent.commands.resolution import resolve as resolve_name
    from tui.command_catalog import refresh

    fixed = fixed_builtin(name)
    if fixed is not None:
        return fixed
    return resolve_name(name, await refresh(host))


async def run(host: Host, command: Builtin, arg: str) -> None:
    """Run one command, unless it needs an agent and there is none (the app runs a command
    that changes the conversation only when nothing else runs: PleatApp.run_slash)."""
    if command.needs_agent and host.agent is None:
        await host.conversation.add_notice(NO_AGENT, "error")
        return
    try:
        await HANDLERS[command.name](host, arg)
    except Exception as error:  # a bug: one red line, the log has the rest
        host.log.error(error)
        await host.conversation.add_notice(
            f"/{command.name} failed: {type(error).__name__}: {error}", "error"
        )
