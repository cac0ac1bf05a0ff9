"""A live history as conversation entries: what a resumed session shows (no UI here)."""

from __future__ import annotations

from collections.abc import Callable

from agent.conversation.entries import (
    Entry,
    ExpansionEntry,
    FoldEntry,
    ReplyEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
)
from agent.conversation.shell_line import SHELL_KEY, shown_output
from agent.turn.loop import Agent
from sessions.archive import ChunkArchive
from sessions.messages import SOURCE_KEY, TYPED_KEY, Message, ToolCall, is_summary
from tools.result_facts import ResultFacts

Describe = Callable[[ToolCall], str]


def describer(agent: Agent) -> Describe:
    """How the agent titles a tool call (the same line as a live tool block's)."""

    def describe(call: ToolCall) -> str:
        tool = agent.registry.get(call.name)
        return tool.describe_call(call.parsed_arguments()) if tool else f"{call.name}(?)"

    return describe


def fold_line(chunk: int | None, archive: ChunkArchive | None) -> str:
    """The marker standing for a summary message: which chunk holds what it summarizes."""
    if chunk is None:
        return "earlier conversation folded into a summary"
    info = next((c for c in archive.chunks() if c.number == chunk), None) if archive else None
    topics = f" · {info.topics}" if info is not None and info.topics else ""
    count = f" ({info.message_count} messages)" if info is not None else ""
    return f"earlier conversation folded into chunk {chunk}{count}{topics}"


def entries_from_history(
    history: list[Message], describe: Describe, archive: ChunkArchive | None = None
) -> list[Entry]:
    """User prompts, replies and tool blocks (with their results) in order; a fold marker for
    the summary message of a compacted history; a `!` line's command block. Other injected
    messages and the system prompt are not shown."""
    results = {m.tool_call_id: m for m in history if m.role == "tool" and m.tool_call_id}
    entries: list[Entry] = []
    for message in history:
        if is_summary(message):
            chunk = message.meta.get("chunk")
            chunk = chunk if isinstance(chunk, int) else None
            line = fold_line(chunk, archive)
            entries.append(FoldEntry(line, "done", chunk, message.content or None))
        elif (output := shown_output(message)) is not None:  # a `!` line: its command block
            command = f"! {message.meta[SHELL_KEY]}"
            entries.append(ToolEntry(command, output, bool(message.meta.get("is_error"))))
        elif message.role == "user" and not message.meta.get("injected"):
            labels = tuple(image.label() for image in message.images)
            typed = message.meta.get(TYPED_KEY)
            if isinstance(typed, str) and typed:  # a custom command: as typed, then what it sent
                entries.append(UserEntry(typed, labels))
                source = str(message.meta.get(SOURCE_KEY) or "")
                entries.append(ExpansionEntry(source, message.content or ""))
            else:
                entries.append(UserEntry(message.content or "", labels))
        elif message.role == "assistant":
            thought = message.reasoning_content or "".join(
                str(b.get("thinking") or "") for b in message.thinking_blocks
            )
            if thought:
                entries.append(ThinkingEntry([thought], done=True))
            if message.content:
                entries.append(ReplyEntry([message.content]))
            for call in message.tool_calls:
                result = results.get(call.id)
                facts = ResultFacts.of_message(result.meta) if result is not None else None
                entries.append(
                    ToolEntry(
                        describe(call),
                        result=(result.content or "") if result is not None else None,
                        is_error=bool(result is not None and result.meta.get("is_error")),
                        subsession=facts.subsession if facts is not None else None,
                        call=call,
                    )
                )
    return entries
