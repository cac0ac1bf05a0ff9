"""The built-ins that call the model: /compact (a fold, the summary shown first with --preview
where the front end can show it), /fork (a fold, then a child session), /init and /review (a turn
with pleat's built-in prompt)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from agent.compaction.fold_line import describe_compaction
from agent.conversation.fork import ForkRefused, fork_session
from agent.events import CommandOutput, CompactionDone, CompactionFailed, Notice, SessionEvent
from agent.slash.context import CommandContext, Failed, Refused
from agent.turn.folds import compact_argument


async def compact(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """`/compact [--preview] [focus]`: fold now; the fold line is the answer. With --preview the
    front end shows the summary to apply, edit or discard; one that cannot show it gets the
    summary as the answer, and nothing is applied."""
    preview, focus = compact_argument(arg)
    async for event in fold(ctx, focus, preview=preview):
        yield event


async def fold(
    ctx: CommandContext, focus: str | None, *, preview: bool = False, before: str | None = None
) -> AsyncIterator[SessionEvent]:
    """The fold's events, then its line (`before`: fold only what precedes that request)."""
    agent, _ = ctx.working()
    shown: list[str] = []

    async def review(summary: str) -> str | None:
        if ctx.front.interactive:
            return await ctx.front.review_summary(summary)
        shown.append(summary)  # nobody to accept it: it is the answer, and discarded
        return None

    last: CompactionDone | CompactionFailed | None = None
    folding = agent.compact(focus=focus, review=review if preview else None, before=before)
    async for event in folding:
        if isinstance(event, CompactionDone | CompactionFailed):
            last = event
        yield event
    assert last is not None
    if shown:
        yield CommandOutput(shown[0].strip())
        yield Notice(f"note: a preview: {describe_compaction(last)}")
        return
    if ctx.front.interactive:  # the fold's own line says it there
        ctx.outcome = "done" if isinstance(last, CompactionDone) else "failed"
        return
    failed = isinstance(last, CompactionFailed)
    yield CommandOutput(describe_compaction(last))
    ctx.outcome = "failed" if failed else "done"


async def fork(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """Fold, then continue in a child session carrying this one's summary; the answer names it.
    Without a session runtime (one run) the child is made and closed, to be resumed."""
    agent, session = ctx.working()
    from sessions.lock import SessionBusy
    from sessions.store import SessionError

    try:
        if ctx.controller is None:
            child, _history, note = await fork_session(agent, session)
            child.close()
            yield CommandOutput(f"{note}\n{child.id}")
            return
        note = await ctx.controller.fork()
    except ForkRefused as error:
        raise Refused(str(error)) from error
    except (SessionError, SessionBusy, OSError) as error:
        raise Failed(f"fork failed: {error}") from error
    await ctx.front.history_replaced("fork")
    yield CommandOutput(note)


async def init(ctx: CommandContext, focus: str) -> AsyncIterator[SessionEvent]:
    """Ask the model to write or update AGENTS.md."""
    async for event in _prompt(ctx, "init", focus):
        yield event


async def review(ctx: CommandContext, focus: str) -> AsyncIterator[SessionEvent]:
    """Ask the model to review the uncommitted changes, reading only."""
    async for event in _prompt(ctx, "review", focus):
        yield event


async def _prompt(ctx: CommandContext, name: str, focus: str) -> AsyncIterator[SessionEvent]:
    """One of pleat's built-in prompts (agent/commands/builtin_prompts.py) as a turn; the
    request keeps the line as typed (/undo gives it back)."""
    from agent.commands.builtin_prompts import PROMPTS, PromptRefused
    from agent.images.prompt import attach_images
    from agent.permissions.policy import READ_ONLY_KEY

    agent, _ = ctx.working()
    typed = ctx.typed or f"/{name} {focus}".rstrip()
    try:  # /review runs git: off the event loop
        built = await asyncio.to_thread(PROMPTS[name], agent.context.workspace, typed, focus)
    except PromptRefused as error:
        raise Refused(str(error)) from error
    reading = " (this request only reads: writes and commands are refused)"
    yield Notice(
        f"/{name}: pleat's built-in prompt{reading if READ_ONLY_KEY in built.meta else ''}"
    )
    attached = await attach_images(typed, agent.context.workspace, agent.attachments)
    if attached.images:
        yield Notice(attached.summary())
    for note in attached.notes:
        yield Notice(f"note: {note}")
    async for event in agent.run_turn(built.text, attached.images, built.meta):
        yield event
