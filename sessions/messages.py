"""The message model (OpenAI chat format plus pleat's metadata) and helpers for tool pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from sessions.image_ref import ImageRef
from sessions.model_json import ModelJsonError, loads

Role = Literal["system", "user", "assistant", "tool"]
# The meta keys of a user message sent for a typed line it differs from: a custom command's
# `/review src/app.py` (agent/commands/catalog.py), whose expanded prompt is the content, and the
# command's file it was expanded from. /undo, /rewind, the session list and the TUI show these.
TYPED_KEY = "typed"
SOURCE_KEY = "expanded_from"
# The meta key of an assistant message pleat wrote where the model's reply did not come (a failed
# or empty call, an interruption): it closes the turn for the model, which must know the step
# did not happen, but it is not the model's: stream-json never shows it as an assistant message.
NO_REPLY_KEY = "no_reply"
# The meta key of an assistant reply the provider cut at its output token limit (finish reason
# "length"): stream-json gives its stop_reason as Anthropic's "max_tokens".
CUT_KEY = "cut"


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
    # Images attached to a user message (a prompt's, or those read_file read), as references
    # to their copies in the session: provider_messages turns them into image parts.
    images: tuple[ImageRef, ...] = ()

    def to_api(self) -> dict[str, Any]:
        """The OpenAI chat-format dict sent to the provider (no pleat metadata; images are added
        by provider_messages, which can read them)."""
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
        if self.images:
            record["images"] = [image.to_record() for image in self.images]
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Message:
        """Inverse of to_record(); also accepts a plain OpenAI chat message. A damaged image
        reference raises ValueError."""
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
            images=tuple(ImageRef.from_record(r) for r in record.get("images") or ()),
        )


def user(text: str, images: tuple[ImageRef, ...] = (), **meta: Any) -> Message:
    return Message(role="user", content=text, meta=meta, images=images)


def assistant(
    text: str | None,
    tool_calls: tuple[ToolCall, ...] = (),
    *,
    thinking_blocks: tuple[dict[str, Any], ...] = (),
    reasoning_content: str | None = None,
    meta: dict[str, Any] | None = None,
) -> Message:
    return Message(
        role="assistant",
        content=text,
        tool_calls=tool_calls,
        thinking_blocks=thinking_blocks,
        reasoning_content=reasoning_content,
        meta=dict(meta or {}),
    )


def tool_result(
    call: ToolCall, text: str, images: tuple[ImageRef, ...] = (), **meta: Any
) -> Message:
    """A tool's result; the images it read (read_file on an image) travel with it, and are
    sent in a user message after the results of its reply (see provider_messages)."""
    return Message(
        role="tool", content=text, tool_call_id=call.id, name=call.name, meta=meta, images=images
    )


def unseen(history: Sequence[Message], seen: set[str]) -> list[Message]:
    """The messages of `history` whose ids are not in `seen`, now added to it. By id, not by
    position: a fold rebuilds the history, keeping some messages and adding a summary."""
    fresh = [message for message in history if message.id not in seen]
    seen.update(message.id for message in fresh)
    return fresh


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


def typed_text(message: Message) -> str:
    """What the user typed for a request: a custom command's line, else the content."""
    typed = message.meta.get(TYPED_KEY)
    return typed if isinstance(typed, str) and typed else message.content or ""


def is_summary(message: Message) -> bool:
    """The summary message a compaction put at the head of the history."""
    return message.meta.get("kind") == "summary"


class ImageSource(Protocol):
    """What turns an attached image into what the provider gets (agent/images/parts.py): an
    OpenAI `image_url` part with a base64 data URL, or one line saying why it is not sent."""

    def image_part(self, image: ImageRef) -> dict[str, Any] | str: ...


# Stands in for an image when there is no image source (nothing can read the session's copy).
NO_IMAGE_SOURCE = "images cannot be read here"


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def api_content(message: Message, images: ImageSource | None) -> str | list[dict[str, Any]] | None:
    """The content as sent: the text, or, with images, OpenAI content parts (the text, then a
    label and the image part for each image; a note instead of an image that cannot be sent)."""
    if not message.images:
        return message.content
    parts = [_text_part(message.content)] if message.content else []
    for image in message.images:
        part = images.image_part(image) if images is not None else NO_IMAGE_SOURCE
        if isinstance(part, str):
            parts.append(_text_part(f"[image {image.label()} ({image.format}): not shown: {part}]"))
        else:
            parts += [_text_part(f"[image {image.label()}]"), part]
    return parts


def _as_parts(content: str | list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [_text_part(content)] if content else []
    return list(content or ())


# Opens the user message that carries the images tool calls read (the OpenAI chat format has no
# image in a tool message), before the images' labels.
TOOL_IMAGES_NOTE = "[pleat: the images read by the tool calls above]"


def _tool_images(results: Sequence[Message], images: ImageSource | None) -> dict[str, Any]:
    """The user message carrying the images of a reply's tool results."""
    carrier = Message(
        role="user", content=TOOL_IMAGES_NOTE, images=tuple(i for m in results for i in m.images)
    )
    return {"role": "user", "content": api_content(carrier, images)}


def provider_messages(
    history: Sequence[Message], images: ImageSource | None = None
) -> list[dict[str, Any]]:
    """The history as sent: consecutive user messages merged into one (strict providers refuse
    two user turns in a row; a summary followed by the user's next request is the usual case);
    images as content parts (`images` reads them), those of tool results in a user message
    after the last result of their reply. Deterministic, so the same history always yields the
    same, cacheable, payload."""
    out: list[dict[str, Any]] = []
    results: list[Message] = []  # the tool results since the last other message
    for index, message in enumerate(history):
        api = message.to_api()
        if message.images and message.role != "tool":
            api["content"] = api_content(message, images)
        _append(out, api)
        if message.role != "tool":
            results = []
            continue
        results.append(message)
        following = history[index + 1] if index + 1 < len(history) else None
        if (following is None or following.role != "tool") and any(m.images for m in results):
            _append(out, _tool_images(results, images))
    return out


def _append(out: list[dict[str, Any]], api: dict[str, Any]) -> None:
    """Append a message, merged into the previous one when both are the user's."""
    previous = out[-1] if out else None
    if previous is None or previous["role"] != "user" or api["role"] != "user":
        out.append(api)
    elif isinstance(previous["content"], str) and isinstance(api["content"], str):
        out[-1] = {**previous, "content": f"{previous['content']}\n\n{api['content']}"}
    else:
        merged = _as_parts(previous["content"]) + _as_parts(api["content"])
        out[-1] = {**previous, "content": merged}


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
