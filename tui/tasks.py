"""The app's long-running work, each run in a worker: a turn, a compaction, a fork."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing

from textual.widget import Widget

from agent.conversation.fork import ForkRefused
from agent.conversation.model_switch import switch_model
from agent.events import FoldReason, PromptBlocked, SessionEvent
from agent.images.prompt import attach_images
from agent.model.discovery import FoundModel
from agent.terminal_text import visible
from agent.turn.folds import SummaryReview
from agent.turn.loop import Agent
from agent.turn.room import ContextTooSmall
from sessions.lock import SessionBusy
from sessions.messages import SOURCE_KEY, TYPED_KEY, Message
from sessions.store import SessionError
from tui import attention, lifecycle, queued, shell_mode
from tui.host import Host
from tui.turn_view import COMPACTING, THINKING, AnyEvent, TurnView

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
    (agent.turn.uninterruptible) is shown as done first."""
    for event in agent.folds.take_unannounced():
        await view.show(event)
    await view.interrupted(quiet=quiet, note=note)


async def _internal_error(host: Host, error: Exception) -> None:
    """A bug, not a provider failure (those arrive as events): one red line, the log has it."""
    host.log.error(error)
    await host.conversation.add_notice(f"internal error: {type(error).__name__}: {error}", "error")


async def run_turn(
    host: Host,
    agent: Agent,
    text: str,
    meta: dict[str, str] | None = None,
    images_from: str | None = None,
) -> None:
    """One request, with the images it names (or `images_from` names); the agent keeps its
    history valid when this worker is cancelled. A custom command's request (`meta`: what was
    typed, the command's file) shows as typed, its expanded text in a collapsed block. A prompt
    a hook blocks leaves the conversation and goes back into the input."""
    request: Widget | None = None

    async def give_back(blocked: PromptBlocked) -> None:
        if not blocked.queued and request is not None:
            await host.conversation.drop(request)
        typed = None if blocked.queued else (meta or {}).get(TYPED_KEY)
        queued.give_back(host, typed or blocked.text)  # a custom command: as it was typed

    view = TurnView(
        host.conversation,
        host.status,
        lambda: lifecycle.refresh_meter(host),
        delivered=lambda: queued.show(host),
        tasks=lambda: lifecycle.show_tasks(host),
        blocked=give_back,
        cost=lambda: session_cost(host),
    )
    host.status.state = THINKING
    try:
        named = text if images_from is None else images_from
        attached = await attach_images(named, agent.context.workspace, agent.attachments)
        typed = (meta or {}).get(TYPED_KEY)
        labels = tuple(i.label() for i in attached.images)
        request = await host.conversation.add_user(typed or text, labels)
        if meta is not None and typed:
            await host.conversation.add_expansion(meta.get(SOURCE_KEY, ""), text)
        for note in attached.notes:
            await host.conversation.add_notice(note)
        await _consume(view, agent.run_turn(text, attached.images, meta))
        await view.end_reply()
        attention.call_attention(host, attention.turn_message(agent), "idle_prompt")
    except asyncio.CancelledError:
        await _interrupted(view, agent)
        raise
    except Exception as error:
        await _internal_error(host, error)
    finally:
        host.status.state = "idle"
        lifecycle.refresh_meter(host)  # also after an interruption: the cut reply is in the history
        host.idle.arm()


async def run_compaction(
    host: Host,
    agent: Agent,
    reason: FoldReason,
    focus: str | None,
    *,
    review: SummaryReview | None = None,
    before: str | None = None,
) -> None:
    """/compact [--preview] [focus] (reason "manual", `review`: the user sees the summary
    first), /rewind's "fold up to here" (`before`: the request it stops at) or an idle fold
    (reason "idle"); cancelled before it commits, it leaves history and archive as they were."""
    view = TurnView(
        host.conversation,
        host.status,
        lambda: lifecycle.refresh_meter(host),
        busy_state=COMPACTING,
        cost=lambda: session_cost(host),
    )
    host.status.state = COMPACTING
    try:
        folding = agent.compact(reason=reason, focus=focus, review=review, before=before)
        await _consume(view, folding)
    except asyncio.CancelledError:
        await _interrupted(view, agent, quiet=reason == "idle", note=False)
        raise
    except Exception as error:
        await _internal_error(host, error)
    finally:
        host.status.state = "idle"
        lifecycle.refresh_meter(host)


async def run_fork(host: Host) -> None:
    """/fork: fold, then continue in a child session (not interruptible: a half-made child
    would keep its lock)."""
    host.status.state = FORKING
    try:
        assert host.controller is not None
        note = await host.controller.fork()
    except (ForkRefused, SessionError, SessionBusy, OSError) as error:
        await host.conversation.add_notice(f"fork failed: {error}", "error")
        return
    except Exception as error:
        await _internal_error(host, error)
        return
    finally:
        host.status.state = "idle"
    await host.conversation.add_notice(note)
    await lifecycle.show_session(host, source="fork")


async def run_model_switch(host: Host, model: FoundModel) -> None:
    """/model in a session: the switch, folding first (shown like /compact) when the context
    would not fit the new model's threshold (agent.conversation.model_switch). Esc during the fold
    keeps the current model."""
    controller, agent = host.controller, host.agent
    assert controller is not None and agent is not None
    view = TurnView(
        host.conversation,
        host.status,
        lambda: lifecycle.refresh_meter(host),
        busy_state=COMPACTING,
        cost=lambda: session_cost(host),
    )
    switched = False

    def adopt(incoming: Agent) -> None:
        nonlocal switched
        controller.adopt_model(model, incoming)
        host.status.model = model.name
        switched = True

    def build(history: list[Message]) -> Agent:
        return controller.agent_for(model, history)

    host.status.state = visible(f"switching to {model.name}")
    said = f"model: {visible(model.name)} (from the next request on)"
    try:
        await _consume(view, switch_model(agent, build, adopt))
    except ContextTooSmall as error:
        await host.conversation.add_notice(f"{said}, but: {error}", "error")
        return
    except asyncio.CancelledError:
        await _interrupted(view, host.agent or agent, note=False)
        await host.conversation.add_notice(said if switched else "model switch interrupted")
        raise
    except Exception as error:
        await _internal_error(host, error)
        return
    finally:
        host.status.state = "idle"
        lifecycle.refresh_meter(host)  # counted already, in threads, by the switch
    await host.conversation.add_notice(said)


def follow_up(host: Host) -> None:
    """The work ended (a turn, a fold, a fork, a `!` command): what is still queued is the next
    turn, up to a `!` line, which runs first when it heads the queue (tui/shell_mode.py)."""
    agent = host.agent
    if host.busy or agent is None or not len(agent.queued):
        return
    if (line := agent.queued.take_command()) is not None:
        queued.show(host)
        shell_mode.start(host, agent, line.removeprefix(shell_mode.PREFIX).strip())
        return
    text = queued.joined(agent.queued.take_deliverable())
    queued.show(host)
    host.start_work("turn", run_turn(host, agent, text))


def session_cost(host: Host) -> float | None:
    """The open session's cost so far: its agent's usage tally, the one source the status bar
    shows (every call of the session: turns, folds, sub-agents)."""
    return host.agent.usage.cost if host.agent is not None else None


async def run_command_work(
    host: Host, typed: str, first: AnyEvent, events: AsyncGenerator[SessionEvent, None]
) -> None:
    """The fold or the turn a built-in command started (/compact, /init, /review:
    agent/slash/), from its first event on: shown as the app's own; a turn shows the line as
    typed first. What the command says besides goes to the conversation as notices."""
    from agent.events import CommandOutput, CompactionStarted, Notice

    folding = isinstance(first, CompactionStarted)
    view = TurnView(
        host.conversation,
        host.status,
        lambda: lifecycle.refresh_meter(host),
        busy_state=COMPACTING if folding else THINKING,
        tasks=lambda: lifecycle.show_tasks(host),
        cost=lambda: session_cost(host),
    )
    host.status.state = COMPACTING if folding else THINKING
    assert host.agent is not None
    try:
        if not folding:
            await host.conversation.add_user(typed)
        async with aclosing(events) as stream:
            await view.show(first)
            async for event in stream:
                if isinstance(event, CommandOutput):
                    await host.conversation.add_notice(
                        event.text, "error" if event.failed else "note"
                    )
                elif isinstance(event, Notice):
                    await host.conversation.add_notice(event.message, event.level)
                else:
                    await view.show(event)
        await view.end_reply()
    except asyncio.CancelledError:
        await _interrupted(view, host.agent, note=not folding)
        raise
    except Exception as error:
        await _internal_error(host, error)
    finally:
        host.status.state = "idle"
        lifecycle.refresh_meter(host)
        if not folding:
            host.idle.arm()
