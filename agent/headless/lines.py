"""stream-json's lines in Claude Code's SDK message shapes: an assistant reply, a tool's result, a
sub-agent's prompt, a fold; each with a `uuid`, and pleat's own fields beside Claude's.

A tool call is named as Claude Code names it (`Bash` with `command`, `Read` with an absolute
`file_path`: agent/claude_code/tools.py), with pleat's name and arguments beside (`pleat_name`,
`pleat_input`). A message's `uuid` is derived from its session and its stable id, so the same
message has the same uuid in every run that shows it (a resumed session's too).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from agent.claude_code.tools import claude_input, claude_name
from agent.events import CompactionDone
from sessions.messages import CUT_KEY, Message, ToolCall
from sessions.usage import Usage

# Fold reasons the user asked for (/compact); Claude Code calls every other fold "auto".
MANUAL_REASONS = frozenset({"manual"})


def message_uuid(session_id: str, message_id: str) -> str:
    """The uuid of one message of one session, the same in every run."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"pleat:{session_id}/{message_id}"))


def new_uuid() -> str:
    """The uuid of a line that is not a message (init, a fold, the result)."""
    return str(uuid.uuid4())


def claude_usage(usage: Usage) -> dict[str, int]:
    """One call's (or a run's) tokens as Anthropic counts them: `input_tokens` without the tokens
    read from the cache or written to it (pleat's prompt tokens include both, as litellm's)."""
    uncached = usage.prompt_tokens - usage.cached_tokens - usage.cache_creation_tokens
    return {
        "input_tokens": max(0, uncached),
        "cache_creation_input_tokens": usage.cache_creation_tokens,
        "cache_read_input_tokens": usage.cached_tokens,
        "output_tokens": usage.completion_tokens,
    }


def stop_reason(message: Message) -> str:
    """Anthropic's stop_reason of a reply: it called tools, was cut at the output limit, or
    ended."""
    if message.tool_calls:
        return "tool_use"
    return "max_tokens" if message.meta.get(CUT_KEY) else "end_turn"


def tool_use(call: ToolCall, workspace: Path) -> dict[str, Any]:
    """A tool call as Claude Code's `tool_use` block, pleat's name and arguments beside."""
    args = call.parsed_arguments()
    return {
        "type": "tool_use",
        "id": call.id,
        "name": claude_name(call.name),
        "input": claude_input(call.name, args, workspace),
        "pleat_name": call.name,
        "pleat_input": args,
    }


class Lines:
    """Makes the lines of one conversation: the run's (`parent` None), or a sub-agent's, whose
    lines carry the id of the `task` call it works on and its own session's id beside."""

    def __init__(
        self,
        session_id: str,
        workspace: Path,
        *,
        parent: str | None = None,
        conversation_id: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.workspace = workspace
        self.parent = parent
        # The session the messages are journaled in (a sub-agent's own; the run's by default).
        self.conversation_id = conversation_id or session_id

    def _common(self, message: Message) -> dict[str, Any]:
        common = {
            "parent_tool_use_id": self.parent,
            "session_id": self.session_id,
            "uuid": message_uuid(self.conversation_id, message.id),
        }
        if self.parent is not None:
            common["pleat_session_id"] = self.conversation_id
        return common

    def assistant(self, message: Message, model: str, usage: Usage | None) -> dict[str, Any]:
        """A reply: its text and its tool calls, the model, why it stopped, what it used."""
        content: list[dict[str, Any]] = []
        if message.content:
            content.append({"type": "text", "text": message.content})
        content += [tool_use(call, self.workspace) for call in message.tool_calls]
        body = {
            "id": message.id if self.parent is None else f"{self.conversation_id}/{message.id}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason(message),
            "stop_sequence": None,
            "usage": claude_usage(usage or Usage()),
        }
        return {"type": "assistant", "message": body, **self._common(message)}

    def tool_result(self, message: Message) -> dict[str, Any]:
        """A tool's result, as the user message that carries it to the model."""
        result = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "content": message.content or "",
            "is_error": bool(message.meta.get("is_error")),
        }
        body = {"role": "user", "content": [result]}
        return {"type": "user", "message": body, **self._common(message)}

    def prompt(self, message: Message) -> dict[str, Any]:
        """A user message's text (a sub-agent's task prompt)."""
        body = {"role": "user", "content": [{"type": "text", "text": message.content or ""}]}
        return {"type": "user", "message": body, **self._common(message)}


def compact_boundary(done: CompactionDone, session_id: str) -> dict[str, Any]:
    """A fold, as Claude Code's compact_boundary, with pleat's account of it beside."""
    trigger = "manual" if done.reason in MANUAL_REASONS else "auto"
    return {
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": new_uuid(),
        "session_id": session_id,
        "compact_metadata": {"trigger": trigger, "pre_tokens": done.tokens_before},
        "chunk": done.chunk,
        "folded_messages": done.folded_messages,
        "tokens_before": done.tokens_before,
        "tokens_after": done.tokens_after,
        "topics": done.topics,
        "reason": done.reason,
    }
