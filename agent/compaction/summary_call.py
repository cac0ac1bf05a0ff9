"""Step 4's call: one compression request (the same system prompt and tools as the live
conversation, so the provider's cache serves it) with one more try for an unusable reply, and
the last resort when no model summary can be had."""

from __future__ import annotations

from typing import Any

from agent.compaction.fold_parts import CompressionCalls, Fold, SummaryModel
from agent.compaction.reply import CompressionReply, ReplyError, parse_reply
from agent.compaction.tail import Split
from agent.images.parts import request_messages
from agent.model.llm import LLMReply
from sessions.messages import ImageSource, Message

# A compression reply that calls a tool or lacks a summary gets one more try.
REPLY_TRIES = 2


async def ask_summary(
    llm: SummaryModel,
    images: ImageSource | None,
    request: list[Message],
    tools: list[dict[str, Any]],
    calls: CompressionCalls,
    max_tokens: int,
) -> CompressionReply:
    """One compression call, one retry; each reply's usage counted in `calls`. Raises
    ReplyError (no usable summary) or what the model door raises (LLMError)."""
    problem = "no reply"
    for _ in range(REPLY_TRIES):
        reply: LLMReply | None = None
        messages = await request_messages(request, images)
        async for item in llm.stream(messages, tools, max_tokens=max_tokens):
            if isinstance(item, LLMReply):
                reply = item
        assert reply is not None
        calls.add(reply)
        if reply.tool_calls:
            problem = "the reply called a tool instead of summarizing"
            continue
        try:
            return parse_reply(reply.text)
        except ReplyError as error:
            problem = str(error)
    raise ReplyError(problem)


def ledger_fold(split: Split, why: str) -> Fold:
    """Last resort: no model summary; the rebuilt message carries pleat's ledger."""
    summary = (
        f"(No summary from the model: {why}. The facts below were recorded by pleat; "
        "read the archived chunk for the details.)"
    )
    return Fold(split, CompressionReply("unsummarized", False, summary), "ledger")
