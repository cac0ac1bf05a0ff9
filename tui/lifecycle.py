"""The app's session lifecycle on screen: open after the first frame, show, warm up, the meter."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from agent.config import ConfigError
from agent.session.model_help import configuration_help
from agent.stop_signals import on_stop_signals
from tui import command_catalog
from tui.host import Host

if TYPE_CHECKING:
    from agent.events import Notice
    from agent.model.discovery import FoundModel
    from sessions.messages import Message


async def start(host: Host) -> None:
    """After the first frame: open the session (new or resumed) and its agent in a thread,
    with the first model found when none is configured (tui.models), show it, then warm
    litellm up after one more frame."""
    from agent.session import lifecycle as life
    from tui.first_model import first_found, found_note
    from tui.resume_picker import PICK

    if host.startup.resume == PICK:  # `pleat --resume`: the picker first, in a worker
        host.start_background(_pick_then_start(host))
        return
    try:
        found = await first_found(host)
        history, notes = await asyncio.to_thread(_open, host, found)
    except Exception as error:  # configuration, session, or a bug: said in the conversation
        host.unavailable = _why_unavailable(host, error)
        host.opened.set()
        await host.conversation.add_markdown(host.unavailable, "help")
        return
    source = "startup" if history is None else "resume"
    await show_session(host, history, notes, source=source, count=False)
    if found is not None:
        await host.conversation.add_notice(found_note(found))
    if host.agent is not None:
        await show_notices(host, life.rule_notices(host.agent))
    host.opened.set()
    # After that frame too: the import holds the interpreter for seconds.
    host.start_background(warm_up(host))
    host.start_background(command_catalog.load(host))
    start_run_parts(host)


def start_run_parts(host: Host) -> None:
    """Once the first session is open: the run's MCP servers and the project's files asked about
    (the session runtime's: agent/session/servers.py, agent/session/lifecycle.py), in the
    background, what they say as notices."""
    from agent.session import lifecycle as life
    from agent.session.servers import start_servers

    controller = host.controller
    if controller is None:
        return

    def say(notice: Notice) -> None:
        host.start_background(show_notices(host, [notice]))

    asking = host.approvals.asking
    host.start_background(start_servers(controller, asking, say, host.start_background))
    host.start_background(_said(host, life.approve_project_files(controller, asking)))


async def _pick_then_start(host: Host) -> None:
    """The session the user picks (none: a new one), then the start."""
    from tui.resume_picker import pick_session

    chosen = await pick_session(host)
    host.startup = dataclasses.replace(host.startup, resume=chosen)
    await start(host)


def _open(host: Host, found: FoundModel | None) -> tuple[list[Message] | None, list[str]]:
    """The session controller (imported here, in a thread: the agent's machinery is most of
    pleat's own start-up time) and the session it opens."""
    from agent.session.runtime import SessionController

    host.controller = SessionController(host.startup, host.workspace, host.approvals)
    return host.controller.open(found)


def _why_unavailable(host: Host, error: Exception) -> str:
    """What the conversation says instead of working: configuration help, or the session
    problem in one line."""
    from sessions.lock import SessionBusy
    from sessions.store import SessionError

    if isinstance(error, ConfigError):
        return configuration_help(str(error) or None)
    if isinstance(error, SessionError | SessionBusy):
        return f"**pleat cannot open a session:** {error}"
    host.log.error(error)
    return f"**pleat cannot start:** {type(error).__name__}: {error}"


async def show_session(
    host: Host,
    history: list[Message] | None = None,
    notes: list[str] | None = None,
    *,
    source: str,
    count: bool = True,
) -> None:
    """Show the open session (at start, and after /new, /resume, /fork): its conversation
    (when given), its id and model, its meter (`count`: now, in a thread; at start-up the
    warm-up counts it); start its SessionStart hooks (`source`: "startup", "resume", "clear"
    for /new, "fork") in the background (a prompt sent meanwhile waits for them)."""
    from agent.conversation.transcript import describer, entries_from_history
    from agent.session import lifecycle as life

    agent, session, controller = host.agent, host.session, host.controller
    assert agent is not None and session is not None and controller is not None
    if history is not None:  # another conversation: the last call's figures were not its
        entries = entries_from_history(history, describer(agent), session.archive)
        await host.conversation.reset(entries)
        host.status.usage = None
    await show_notices(host, life.opened_notices(controller, list(notes or ()), source))
    host.status.sandbox = controller.sandbox.label
    show_tasks(host)
    host.status.session = session.id
    host.status.goal = agent.goal or ""  # a resumed or forked session's goal, from its journal
    host.status.model = (controller.config.model if controller.config else None) or ""
    host.status.cost = agent.usage.cost  # the session's bill so far, from its journal
    limit = agent.cap.limit
    host.status.cap = None if limit is None else (limit, agent.cap.start)
    left = life.arm_session_start(controller, source)
    if left is not None:  # the session this switch left: its SessionEnd hooks
        reason = life.SESSION_END_REASONS[source]
        host.start_background(_said(host, life.session_end(left, reason)))
    host.start_background(_said(host, life.session_start(agent)))
    if count:
        await refresh_meter_soon(host)
    host.idle.arm()


async def show_notices(host: Host, notices: Sequence[Notice]) -> None:
    """The session's notices in the conversation."""
    for notice in notices:
        await host.conversation.add_notice(notice.message, notice.level)


async def _said(host: Host, work: Awaitable[list[Notice]]) -> None:
    await show_notices(host, await work)


def show_tasks(host: Host) -> None:
    """Show the session's task list as its history holds it (tools.todo_list)."""
    from tools.todo_list import current_todos

    agent = host.agent
    host.task_list.show(current_todos(agent.history) if agent is not None else None)


async def warm_up(host: Host) -> None:
    """Import litellm and count the context in threads while the user types the first
    prompt; then catch the archive index up (agent/session/archive_indexer.py)."""
    assert host.controller is not None
    await host.controller.warm_up()
    await refresh_meter_soon(host)
    host.controller.warm = True
    host.idle.arm()
    # Then the archive index caught up by a process of its own (it holds up nothing).
    from agent.session.archive_indexer import index_in_background

    await index_in_background()


async def refresh_meter_soon(host: Host) -> None:
    """Count the whole context in a thread (a resumed session: every message), then show it."""
    from agent.slash.context_report import gauge

    agent = host.agent
    if agent is not None:
        host.status.context = await asyncio.to_thread(gauge, agent)
        _show_folding(host)


def refresh_meter(host: Host) -> None:
    """Show the context meter now (cheap once warm: counts are cached per message)."""
    from agent.slash.context_report import gauge

    warm = host.controller is not None and host.controller.warm
    if warm and host.agent is not None:
        host.status.context = gauge(host.agent)
        _show_folding(host)


def _show_folding(host: Host) -> None:
    """Compaction's state in the status bar, unless a fold is running: in the background,
    paused or idle."""
    agent = host.agent
    compactor = agent.compactor if agent is not None else None
    if host.status.folding != "running":
        paused = compactor is not None and compactor.suspended_below is not None
        background = agent is not None and agent.folds.background is not None
        host.status.folding = "background" if background else "paused" if paused else "idle"


def quit_on_stop_signals(quit_app: Callable[[], None]) -> None:
    """SIGTERM, and SIGHUP (the terminal closed, ssh dropped), quit the app the way Ctrl+Q does
    (the turn stopped, MCP servers stopped, the session closed) instead of killing it mid-step:
    agent.stop_signals, shared with the headless run."""
    on_stop_signals(lambda _: quit_app())
