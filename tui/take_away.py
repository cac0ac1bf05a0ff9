"""/copy, /export and /diff in the TUI: the last answer to the clipboard, the conversation to a
markdown file, the session's changes as a diff block; none of them calls the model."""

from __future__ import annotations

import asyncio

from agent.conversation.entries import ToolEntry
from agent.conversation.export import ExportRefused, export_conversation
from agent.conversation.session_diff import this_sessions_diff
from agent.terminal_text import hidden_count, visible
from sessions.messages import Message
from tui.host import Host

# The most /copy puts on the clipboard: OSC 52 sends it base64 in one escape sequence, which
# terminals bound (xterm and tmux take about 100 KB); an answer longer than that is cut.
MAX_COPY_CHARS = 100_000


def last_answer(history: list[Message]) -> str | None:
    """The text of the model's last reply that has any (None: no answer yet)."""
    for message in reversed(history):
        if message.role == "assistant" and (message.content or "").strip():
            return (message.content or "").strip()
    return None


async def copy(host: Host, _: str) -> None:
    """Put the last answer on the clipboard with OSC 52, which the terminal (also over ssh, and
    tmux with set-clipboard on) writes to the system clipboard; say so."""
    assert host.agent is not None
    answer = last_answer(host.agent.history)
    if answer is None:
        await host.conversation.add_notice("nothing to copy: there is no answer yet", "error")
        return
    # What the screen showed: control characters (an ESC, the end of a bracketed paste, a bidi
    # override) as their escape text, so a paste into a shell types nothing unseen (found by
    # review); and no more than a terminal takes in one OSC 52.
    hidden = hidden_count(answer)
    text = visible(answer)[:MAX_COPY_CHARS]
    host.copy_to_clipboard(text)
    lines = text.count("\n") + 1
    said = [f"{len(text):,} characters, {lines} line{'' if lines == 1 else 's'}"]
    if hidden:
        said.append(f"{hidden} control character{'' if hidden == 1 else 's'} as escape text")
    if len(text) < len(visible(answer)):
        said.append(f"cut to the first {MAX_COPY_CHARS:,} characters")
    await host.conversation.add_notice(
        f"copied the last answer to the clipboard ({'; '.join(said)}; OSC 52: a terminal that "
        "does not take it copies nothing)"
    )


async def export(host: Host, file_name: str) -> None:
    """Write the conversation to FILE (default: a dated name in the workspace); say where."""
    assert host.agent is not None and host.session is not None
    try:
        exported = await asyncio.to_thread(
            export_conversation,
            host.session.id,
            host.agent.context.workspace,
            list(host.agent.history),
            host.session.archive,
            file_name,
        )
    except ExportRefused as error:
        await host.conversation.add_notice(f"cannot export: {error}", "error")
        return
    await host.conversation.add_notice(exported.line())


async def diff(host: Host, _: str) -> None:
    """Show what this session changed, as a diff block (the tool calls' view)."""
    agent, session = host.agent, host.session
    assert agent is not None and session is not None
    found = await this_sessions_diff(agent, session)
    if not found.files:
        await host.conversation.add_notice(found.text())
        return
    count = len(found.files)
    summary = f"/diff · {count} file{'' if count == 1 else 's'} changed this session"
    listed = "\n".join([*found.files, *(f"note: {note}" for note in found.notes)])
    await host.conversation.add(ToolEntry(summary, result=listed, diff=found.diff))
