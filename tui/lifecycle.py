"""The app's session lifecycle: open after the first frame, show, warm up, keep the meter."""

from __future__ import annotations

import asyncio
import gc
import importlib
import sys
from typing import TYPE_CHECKING

from agent.config import ConfigError
from agent.offline import prepare_offline_env
from tui.help import configuration_help

if TYPE_CHECKING:
    from sessions.messages import Message
    from tui.app import PleatApp


async def start(app: PleatApp) -> None:
    """After the first frame: open the session (new or resumed) and its agent in a thread,
    show it, then warm litellm up after one more frame."""
    try:
        history, notes = await asyncio.to_thread(_open, app)
    except Exception as error:  # configuration, session, or a bug: said in the conversation
        app.unavailable = _why_unavailable(app, error)
        app.opened.set()
        await app.conversation.add_markdown(app.unavailable, "help")
        return
    await show_session(app, history, notes, count=False)
    app.opened.set()
    # After that frame too: the import holds the interpreter for seconds.
    app.call_after_refresh(
        lambda: app.run_worker(warm_up(app), group="warm-up", exit_on_error=False)
    )


def _open(app: PleatApp) -> tuple[list[Message] | None, list[str]]:
    """The session and its agent: the resumed history and repair notes. Raises ConfigError
    (no usable model), SessionError or SessionBusy."""
    from tui.session_host import SessionHost

    config = app.config
    if config is None or not config.model or app.config_error is not None:
        raise ConfigError(app.config_error or "")
    app.host = SessionHost(config, app.workspace, app.approvals)
    return app.host.open(resume=app.resume_id, continue_latest=app.continue_latest)


def _why_unavailable(app: PleatApp, error: Exception) -> str:
    """What the conversation says instead of working: configuration help, or the session
    problem in one line."""
    from sessions.lock import SessionBusy
    from sessions.store import SessionError

    if isinstance(error, ConfigError):
        return configuration_help(str(error) or None)
    if isinstance(error, SessionError | SessionBusy):
        return f"**pleat cannot open a session:** {error}"
    app.log.error(error)
    return f"**pleat cannot start:** {type(error).__name__}: {error}"


async def show_session(
    app: PleatApp,
    history: list[Message] | None = None,
    notes: list[str] | None = None,
    *,
    count: bool = True,
) -> None:
    """Show the open session: its conversation (when given), its id and model, its meter
    (`count`: now, in a thread; at start-up the warm-up counts it)."""
    from tui.transcript import describer, entries_from_history

    agent, session = app.agent, app.session
    assert agent is not None and session is not None
    if history is not None:  # another conversation: the last call's figures were not its
        entries = entries_from_history(history, describer(agent), session.archive)
        await app.conversation.reset(entries)
        app.status.usage = None
    for note in notes or ():
        await app.conversation.add_notice(f"resumed with a repair: {note}")
    app.status.session = session.id
    app.status.model = app.sessions.config.model or ""
    app.status.cost = agent.usage.cost  # the session's bill so far, from its journal
    if count:
        await refresh_meter_soon(app)
    app.idle.arm()


async def warm_up(app: PleatApp) -> None:
    """Import litellm (about 4 s) and count the context in a thread while the user types the
    first prompt."""
    prepare_offline_env()
    first_import = "litellm" not in sys.modules
    await asyncio.to_thread(importlib.import_module, "litellm")
    if first_import:
        # litellm's import leaves a few hundred thousand long-lived objects: out of the
        # collector's full scans from now on, which would otherwise pause the UI for a few
        # hundred milliseconds every so often (bench/tui_latency.py). Once per process: a
        # later freeze would also pin whatever garbage is around then.
        gc.freeze()
    await refresh_meter_soon(app)
    app.warm = True
    app.idle.arm()


async def refresh_meter_soon(app: PleatApp) -> None:
    """Count the whole context in a thread (a resumed session: every message), then show it."""
    from tui.context_report import gauge

    agent = app.agent
    if agent is not None:
        app.status.context = await asyncio.to_thread(gauge, agent)
        _show_folding(app)


def refresh_meter(app: PleatApp) -> None:
    """Show the context meter now (cheap once warm: counts are cached per message)."""
    from tui.context_report import gauge

    if app.warm and app.agent is not None:
        app.status.context = gauge(app.agent)
        _show_folding(app)


def _show_folding(app: PleatApp) -> None:
    """Compaction's state in the status bar, unless a fold is running: paused or idle."""
    compactor = app.agent.compactor if app.agent is not None else None
    if app.status.folding != "running":
        paused = compactor is not None and compactor.suspended_below is not None
        app.status.folding = "paused" if paused else "idle"
