"""The app's long-running work, each run in a worker: a turn, a compaction, a fork."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from agent.events import FoldReason
from agent.fork import ForkRefused
from agent.loop import Agent
from sessions.lock import SessionBusy
from sessions.store import SessionError
from tui.turn_view import COMPACTING, THINKING, AnyEvent, TurnView

if TYPE_CHECKING:
    from tui.app import PleatApp

# The status while /fork folds the session and opens its child.
FORKING = "forking (folding first)"


async def _consume(view: TurnView, events: AsyncGenerator[AnyEvent, None]) -> None:
    """Show every event."""
    async with aclosing(events) as stream:
        async for event in stream:
            await view.show(event)


async def _interrupted(
    view: TurnView, agent: Agent, *, quiet: bool = False, note: bool = True
) -> None:
    """Close the interrupted work's view; a fold that committed while the cancellation waited
    (agent.uninterruptible) is shown as done first."""
    for event in agent.take_unannounced():
        await view.show(event)
    await view.interrupted(quiet=quiet, note=note)


async def _internal_error(app: PleatApp, error: Exception) -> None:
    """A bug, not a provider failure (those arrive as events): one red line, the log has it."""
    app.log.error(error)
    await app.conversation.add_notice(f"internal error: {type(error).__name__}: {error}", "error")


async def run_turn(app: PleatApp, agent: Agent, text: str) -> None:
    """One request; the agent keeps its history valid when this worker is cancelled."""
    view = TurnView(app.conversation, app.status, app.refresh_context)
    app.status.state = THINKING
    await app.conversation.add_user(text)
    try:
        await _consume(view, agent.run_turn(text))
        await view.end_reply()
    except asyncio.CancelledError:
        await _interrupted(view, agent)
        raise
    except Exception as error:
        await _internal_error(app, error)
    finally:
        app.status.state = "idle"
        app.refresh_context()  # also after an interruption: the cut reply is in the history
        app.idle.arm()


async def run_compaction(
    app: PleatApp, agent: Agent, reason: FoldReason, focus: str | None
) -> None:
    """/compact [focus] (reason "manual") or an idle fold (reason "idle"); cancelled before it
    commits, it leaves history and archive as they were."""
    view = TurnView(app.conversation, app.status, app.refresh_context, busy_state=COMPACTING)
    app.status.state = COMPACTING
    try:
        await _consume(view, agent.compact(reason=reason, focus=focus))
    except asyncio.CancelledError:
        await _interrupted(view, agent, quiet=reason == "idle", note=False)
        raise
    except Exception as error:
        await _internal_error(app, error)
    finally:
        app.status.state = "idle"
        app.refresh_context()


async def run_fork(app: PleatApp) -> None:
    """/fork: fold, then continue in a child session (not interruptible: a half-made child
    would keep its lock)."""
    app.status.state = FORKING
    try:
        note = await app.sessions.fork()
    except (ForkRefused, SessionError, SessionBusy, OSError) as error:
        await app.conversation.add_notice(f"fork failed: {error}", "error")
        return
    except Exception as error:
        await _internal_error(app, error)
        return
    finally:
        app.status.state = "idle"
    app.approvals.always.clear()  # "always" was said for the parent session
    await app.conversation.add_notice(note)
    await app.session_switched()
