"""The app's long-running work, each run in a worker: a turn, a compaction, a fork."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from agent.events import CompactionDone, CompactionFailed, FoldReason
from agent.fork import ForkRefused
from agent.loop import Agent
from sessions.lock import SessionBusy
from sessions.store import SessionError
from tui.turn_view import COMPACTING, THINKING, AnyEvent, TurnView

if TYPE_CHECKING:
    from tui.app import PleatApp

# The status while /fork folds the session and opens its child.
FORKING = "forking (folding first)"


async def _consume(app: PleatApp, view: TurnView, events: AsyncGenerator[AnyEvent, None]) -> None:
    """Show every event; after a fold's outcome, deliver an interruption held while it
    committed (see tui.fold_guard)."""
    async with aclosing(events) as stream:
        async for event in stream:
            await view.show(event)
            if isinstance(event, CompactionDone | CompactionFailed):
                app.guard.settle()


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
        await _consume(app, view, agent.run_turn(text))
        await view.end_reply()
    except asyncio.CancelledError:
        await view.interrupted()
        raise
    except Exception as error:
        await _internal_error(app, error)
    finally:
        app.status.state = "idle"
        app.guard.reset()
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
        await _consume(app, view, agent.compact(reason=reason, focus=focus))
    except asyncio.CancelledError:
        await view.interrupted(quiet=reason == "idle", note=False)
        raise
    except Exception as error:
        await _internal_error(app, error)
    finally:
        app.status.state = "idle"
        app.guard.reset()
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
        app.guard.reset()
    app.approvals.always.clear()  # "always" was said for the parent session
    await app.conversation.add_notice(note)
    await app.session_switched()
