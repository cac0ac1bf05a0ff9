"""A streamed reply's reasoning, assembled: signed thinking blocks, redacted ones, plain text.

litellm streams Anthropic's thinking as deltas of `thinking_blocks` (text pieces, then one
piece carrying the block's signature) and, for every provider, `reasoning_content` text. A
signature closes a block; a redacted block arrives whole. The blocks must go back to the
provider exactly as they came (sessions/messages.py keeps them on the reply), but for a lone
UTF-16 surrogate, which becomes U+FFFD like everywhere else: kept, it could not be sent at all.
"""

from __future__ import annotations

from typing import Any

from sessions.lone_surrogates import encodable


def _field(obj: Any, name: str) -> Any:
    """The field `name` of a delta or block; text with no lone surrogate (see the module)."""
    value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return encodable(value) if isinstance(value, str) else value


class ReasoningAssembler:
    """Collects one reply's reasoning from its stream deltas."""

    def __init__(self) -> None:
        self.blocks: list[dict[str, Any]] = []
        self._text: list[str] = []  # the open thinking block's text so far
        self._reasoning: list[str] = []  # every piece of reasoning_content
        self._saw_reasoning = False

    def add(self, delta: Any) -> str:
        """Take a delta's reasoning; returns its new reasoning text (for the UI), or ""."""
        shown = ""
        piece = _field(delta, "reasoning_content")
        if isinstance(piece, str):
            self._saw_reasoning = True
            self._reasoning.append(piece)
            shown = piece
        for block in _field(delta, "thinking_blocks") or ():
            kind = _field(block, "type")
            if kind == "redacted_thinking":
                self._close()
                self.blocks.append({"type": "redacted_thinking", "data": _field(block, "data")})
                continue
            text = _field(block, "thinking")
            if isinstance(text, str) and text:
                self._text.append(text)
                if not shown:
                    shown = text
            signature = _field(block, "signature")
            if isinstance(signature, str) and signature:
                self._close(signature)
        return shown

    def _close(self, signature: str | None = None) -> None:
        if signature is None and not self._text:
            return
        block: dict[str, Any] = {"type": "thinking", "thinking": "".join(self._text)}
        if signature is not None:
            block["signature"] = signature
        self.blocks.append(block)
        self._text = []

    def result(self) -> tuple[tuple[dict[str, Any], ...], str | None]:
        """(thinking blocks, reasoning content) of the whole reply."""
        self._close()
        if self.blocks:  # the blocks hold the same text (litellm sends both): kept once
            return tuple(self.blocks), None
        reasoning = "".join(self._reasoning) if self._saw_reasoning else None
        return (), reasoning or None
