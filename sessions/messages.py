"""The message model (OpenAI chat format plus pleat's metadata) and helpers for tool pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sessions.model_json import ModelJsonError, loads

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """One function call requested by the model; `arguments` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str

    def to_api(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict, or {} when the model sent something that is not an object."""
        try:
            value = loads(self.arguments or "{}")
        except ModelJsonError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass
class Message:
    """One chat message. `id` is stable for the life of a session (journal, archive, reader tool
    all cite it); `meta` holds pleat's own flags (e.g. injected) and never reaches the model."""

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None  # the tool's name, on tool results
    id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    # An assistant reply's reasoning, kept exactly as the provider gave it, because it must
    # come back unchanged: Anthropic's thinking blocks with their signatures (litellm's
    # `thinking_blocks`), and other providers' plain `reasoning_content`.
    thinking_blocks: tuple[dict[str, Any], ...] = ()
    reasoning_content: str | None = None

    def to_api(self) -> dict[str, Any]:
        """The OpenAI chat-format dict sent to the provider (no pleat metadata)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [c.to_api() for c in self.tool_calls]
        if self.thinking_blocks:
            out["thinking_blocks"] = [dict(block) for block in self.thinking_blocks]
        if self.reasoning_content is not None:
            out["reasoning_content"] = self.reasoning_content
        if self.role == "tool":
            out["tool_call_id"] = self.tool_call_id
            if self.name:
                out["name"] = self.name
        return out

    def to_record(self) -> dict[str, Any]:
        """The message as stored on disk: the API form plus id and metadata."""
        record = self.to_api()
        record["id"] = self.id
        if self.meta:
            record["meta"] = self.meta
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Message:
        """Inverse of to_record(); also accepts a plain OpenAI chat message."""
        calls = tuple(
            ToolCall(c["id"], c["function"]["name"], c["function"].get("arguments") or "")
            for c in record.get("tool_calls") or ()
        )
        return cls(
            role=record["role"],
            content=record.get("content"),
            tool_calls=calls,
            tool_call_id=record.get("tool_call_id"),
            name=record.get("name"),
            id=record.get("id", ""),
            meta=dict(record.get("meta") or {}),
            thinking_blocks=tuple(dict(b) for b in record.get("thinking_blocks") or ()),
            reasoning_content=record.get("reasoning_content"),
        )


def user(text: str, **meta: Any) -> Message:
    return Message(role="user", content=text, meta=meta)


def assistant(
    text: str | None,
    tool_calls: tuple[ToolCall, ...] = (),
    *,
    thinking_blocks: tuple[dict[str, Any], ...] = (),
    reasoning_content: str | None = None,
) -> Message:
    return Message(
        role="assistant",
        content=text,
        tool_calls=tool_calls,
        thinking_blocks=thinking_blocks,
        reasoning_content=reasoning_content,
    )


def tool_result(call: ToolCall, text: str, **meta: Any) -> Message:
    return Message(role="tool", content=text, tool_call_id=call.id, name=call.name, meta=meta)


def unanswered_calls(history: list[Message]) -> list[ToolCall]:
    """Tool calls of the last assistant message that have no result yet, in call order."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role == "assistant":
            answered = {m.tool_call_id for m in history[index + 1 :] if m.role == "tool"}
            return [c for c in message.tool_calls if c.id not in answered]
    return []


def unread_results(history: Sequence[Message]) -> set[str]:
    """Ids of the tool results the model has not read yet: those after its last reply."""
    for index in range(len(history) - 1, -1, -1):
        if history[index].role == "assistant":
            return {m.id for m in history[index + 1 :] if m.role == "tool"}
    return {m.id for m in history if m.role == "tool"}


def is_summary(message: Message) -> bool:
    """The summary message a compaction put at the head of the history."""
    return message.meta.get("kind") == "summary"


def provider_messages(history: list[Message]) -> list[dict[str, Any]]:
    """The history as sent: consecutive user messages merged into one (strict providers refuse
    two user turns in a row; a summary followed by the user's next request is the usual case).
    Deterministic, so the same history always yields the same, cacheable, payload."""
    out: list[dict[str, Any]] = []
    for message in history:
        api = message.to_api()
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous["role"] == "user"
            and api["role"] == "user"
            and isinstance(previous["content"], str)
            and isinstance(api["content"], str)
        ):
            out[-1] = {**previous, "content": f"{previous['content']}\n\n{api['content']}"}
        else:
            out.append(api)
    return out


def units(history: list[Message], start: int = 0) -> list[tuple[int, int]]:
    """Split history[start:] into atomic (begin, end) index ranges: an assistant message with
    its tool results is one unit, any other message is its own. Cutting between units never
    separates a tool call from its results."""
    spans: list[tuple[int, int]] = []
    index = start
    while index < len(history):
        end = index + 1
        if history[index].role == "assistant" and history[index].tool_calls:
            while end < len(history) and history[end].role == "tool":
                end += 1
        elif history[index].role == "tool" and spans:
            # An orphan result (should not exist) stays glued to what precedes it.
            begin, _ = spans.pop()
            spans.append((begin, end))
            index = end
            continue
        spans.append((index, end))
        index = end
    return spans


def last_id_number(history: list[Message]) -> int:
    """The highest n among ids like m<n> (0 if none): new ids continue after it."""
    numbers = [int(m.id[1:]) for m in history if m.id[:1] == "m" and m.id[1:].isdigit()]
    return max(numbers, default=0)
