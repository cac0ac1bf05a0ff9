"""One streamed reply put back together from litellm's chunks: tool calls, usage, a cut stream."""

from __future__ import annotations

from typing import Any

from sessions.lone_surrogates import encodable, mended_json
from sessions.messages import ToolCall
from sessions.usage import Usage

# Milliseconds in a second (a call's duration is kept in milliseconds, as Claude Code gives it).
MS_PER_SECOND = 1000


def usage_from(raw: Any, seconds: float = 0.0) -> Usage:
    """Usage from a litellm usage object: OpenAI cached tokens, Anthropic cache read/creation;
    the call took `seconds`."""
    api_ms = round(seconds * MS_PER_SECOND)
    if raw is None:
        return Usage(api_ms=api_ms)

    def get(obj: Any, name: str) -> int:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        return int(value or 0)

    details = (
        raw.get("prompt_tokens_details")
        if isinstance(raw, dict)
        else getattr(raw, "prompt_tokens_details", None)
    )
    cached = get(details, "cached_tokens") if details is not None else 0
    cached = cached or get(raw, "cache_read_input_tokens")
    return Usage(
        prompt_tokens=get(raw, "prompt_tokens"),
        completion_tokens=get(raw, "completion_tokens"),
        cached_tokens=cached,
        cache_creation_tokens=get(raw, "cache_creation_input_tokens"),
        api_ms=api_ms,
    )


class ToolCallAssembler:
    """Joins streamed tool-call deltas (id and name first, arguments in pieces) by index. Each
    lone surrogate in a call becomes U+FFFD: a raw one would make the next request impossible
    to encode as UTF-8, and one escaped in the arguments (`\\ud800`) would reach the tool."""

    def __init__(self) -> None:
        self._parts: dict[int, dict[str, str]] = {}

    def add(self, delta: Any) -> None:
        index = getattr(delta, "index", None)
        if index is None:
            index = len(self._parts)
        part = self._parts.setdefault(index, {"id": "", "name": "", "arguments": ""})
        if getattr(delta, "id", None):
            part["id"] = delta.id
        function = getattr(delta, "function", None)
        if function is not None:
            if getattr(function, "name", None):
                part["name"] = function.name
            if getattr(function, "arguments", None):
                part["arguments"] += function.arguments

    def calls(self) -> tuple[ToolCall, ...]:
        out = []
        for index in sorted(self._parts):
            part = self._parts[index]
            call_id = part["id"] or f"call_pleat_{index}"
            name, arguments = encodable(part["name"]), mended_json(part["arguments"])
            out.append(ToolCall(encodable(call_id), name, arguments))
        return tuple(out)


def stream_was_cut(response: Any) -> bool:
    """True when the stream ended without the provider's finish reason (a dropped connection:
    the SSE client just stops, and litellm would report a normal "stop"). A stream that got as
    far as the provider's usage chunk (sent last, after the finish) was not cut: it was a
    complete reply with no choices in it, which the caller reports as an empty reply."""
    if not hasattr(response, "received_finish_reason"):
        return False
    if response.received_finish_reason or response.intermittent_finish_reason:
        return False
    # litellm keeps the provider's chunks; only a chunk the provider sent carries usage there.
    return not any(getattr(chunk, "usage", None) for chunk in getattr(response, "chunks", ()))
