"""/export, /diff and /copy: the conversation as a markdown file, the session's changes as a diff,
the last answer to the clipboard; none of them calls the model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from agent.conversation.export import ExportRefused, export_conversation
from agent.conversation.session_diff import this_sessions_diff
from agent.events import CommandOutput, SessionEvent
from agent.slash.context import CommandContext, Refused
from agent.terminal_text import hidden_count, visible
from sessions.messages import Message

# The most /copy puts on the clipboard: OSC 52 sends it base64 in one escape sequence, which
# terminals bound (xterm and tmux take about 100 KB); an answer longer than that is cut.
MAX_COPY_CHARS = 100_000


async def export(ctx: CommandContext, arg: str) -> AsyncIterator[SessionEvent]:
    """Write the conversation to FILE (default: a dated name in the workspace); say where."""
    agent, session = ctx.working()
    try:
        exported = await asyncio.to_thread(
            export_conversation,
            session.id,
            agent.context.workspace,
            list(agent.history),
            session.archive,
            arg,
        )
    except ExportRefused as error:
        raise Refused(str(error)) from error
    yield CommandOutput(exported.line())


async def diff(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """What this session changed in the workspace, as a unified diff."""
    agent, session = ctx.working()
    found = await this_sessions_diff(agent, session)
    if not found.files:
        yield CommandOutput(found.text())
        return
    count = len(found.files)
    title = f"/diff · {count} file{'' if count == 1 else 's'} changed this session"
    listed = "\n".join([*found.files, *(f"note: {note}" for note in found.notes)])
    yield CommandOutput(found.text(), diff=found.diff, title=title, listed=listed)


def last_answer(history: list[Message]) -> str | None:
    """The text of the model's last reply that has any (None: no answer yet)."""
    for message in reversed(history):
        if message.role == "assistant" and (message.content or "").strip():
            return (message.content or "").strip()
    return None


async def copy(ctx: CommandContext, _: str) -> AsyncIterator[SessionEvent]:
    """The last answer to the clipboard (the front end's: OSC 52 in the terminal), as the screen
    showed it: control characters as their escape text, so a paste into a shell types nothing
    unseen; and no more than a terminal takes in one OSC 52."""
    agent, _session = ctx.working()
    answer = last_answer(agent.history)
    if answer is None:
        raise Refused("nothing to copy: there is no answer yet")
    hidden = hidden_count(answer)
    text = visible(answer)[:MAX_COPY_CHARS]
    ctx.front.copy(text)
    lines = text.count("\n") + 1
    said = [f"{len(text):,} characters, {lines} line{'' if lines == 1 else 's'}"]
    if hidden:
        said.append(f"{hidden} control character{'' if hidden == 1 else 's'} as escape text")
    if len(text) < len(visible(answer)):
        said.append(f"cut to the first {MAX_COPY_CHARS:,} characters")
    yield CommandOutput(
        f"copied the last answer to the clipboard ({'; '.join(said)}; OSC 52: a terminal that "
        "does not take it copies nothing)"
    )
