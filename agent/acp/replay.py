"""A saved session replayed to the editor (session/load): its prompts, answers, reasoning, tool
calls with their results, and a fold where the conversation was folded, as session updates."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp.schema import TextContentBlock, ToolCallStart, UserMessageChunk

from agent.acp.tool_calls import kind_of, locations, text_content
from agent.acp.updates import Update, message, thought
from agent.conversation.entries import (
    ExpansionEntry,
    FoldEntry,
    ReplyEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
)
from agent.conversation.transcript import describer, entries_from_history
from agent.terminal_text import visible

if TYPE_CHECKING:
    from agent.turn.loop import Agent
    from sessions.store import Session

ReplayUpdate = Update | UserMessageChunk


def user(text: str) -> UserMessageChunk:
    return UserMessageChunk(
        session_update="user_message_chunk", content=TextContentBlock(type="text", text=text)
    )


def replayed(agent: Agent, session: Session) -> list[ReplayUpdate]:
    """Every entry of the live history, in order, as the updates that would have shown it."""
    workspace = agent.context.workspace
    updates: list[ReplayUpdate] = []
    entries = entries_from_history(agent.history, describer(agent), session.archive)
    for number, entry in enumerate(entries):
        if isinstance(entry, UserEntry):
            labels = "".join(f"\n[image {label}]" for label in entry.images)
            updates.append(user(visible(entry.text) + labels))
        elif isinstance(entry, ExpansionEntry):
            updates.append(thought(f"{entry.source} sent:\n{visible(entry.text)}\n"))
        elif isinstance(entry, ThinkingEntry):
            updates.append(thought(visible(entry.text)))
        elif isinstance(entry, ReplyEntry):
            updates.append(message(visible(entry.text)))
        elif isinstance(entry, ToolEntry):
            call = entry.call
            args = call.parsed_arguments() if call is not None else {}
            failed = entry.is_error or entry.result is None
            updates.append(
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id=f"replayed-{number}-{call.id if call is not None else ''}",
                    title=visible(entry.summary),
                    kind=kind_of(call.name) if call is not None else "other",
                    status="failed" if failed else "completed",
                    locations=locations(workspace, args),
                    content=text_content(
                        entry.result if entry.result is not None else "(no result)"
                    ),
                    raw_input=args or None,
                )
            )
        elif isinstance(entry, FoldEntry):
            updates.append(
                ToolCallStart(
                    session_update="tool_call",
                    tool_call_id=f"fold-replayed-{number}",
                    title=visible(entry.text),
                    kind="other",
                    status="completed",
                    content=text_content(entry.summary or entry.text),
                )
            )
    return updates
