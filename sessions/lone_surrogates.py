"""Lone UTF-16 surrogates (`"\\ud800"` is valid JSON), found and made U+FFFD: pleat's one mend.

A model's reply, a tool's output or an MCP server's message may hold one (half of an emoji, a
file in broken UTF-16). A Python string keeps it, but UTF-8 cannot encode it: not in a file, a
terminal, nor the next request's body. Wherever such text enters, each one becomes U+FFFD.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sessions.model_json import ModelJsonError, loads

# One lone surrogate: a well-formed pair is a single character in a Python string, never these.
_LONE = re.compile("[\ud800-\udfff]")
# How JSON text escapes a UTF-16 code unit: only text holding it can hide an escaped surrogate.
_ESCAPE = "\\u"


def invalid_characters(text: str) -> int:
    """How many lone UTF-16 surrogates `text` holds: characters UTF-8 cannot encode."""
    return len(_LONE.findall(text))


def encodable(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD."""
    return _LONE.sub("\ufffd", text)


def has_lone_surrogate(value: Any) -> bool:
    """Whether any string in a parsed value holds a lone UTF-16 surrogate (`"\\ud800"` in JSON
    parses, but cannot be written as UTF-8: not to a file, a path, or a terminal)."""
    if isinstance(value, str):
        return _LONE.search(value) is not None
    if isinstance(value, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_lone_surrogate(v) for v in value)
    return False


def without_surrogates(value: Any) -> Any:
    """`value` (parsed JSON) with every lone surrogate in its strings and keys made U+FFFD."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        return [without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {encodable(k): without_surrogates(v) for k, v in value.items()}
    return value


def mended_json(text: str) -> str:
    """JSON text (a tool call's arguments) whose value holds no lone surrogate, raw or escaped
    (`\\ud800`): each is U+FFFD. Text with none is returned as it is; text that does not parse
    keeps its escapes (plain ASCII, so it can be sent; the tool refuses it anyway)."""
    text = encodable(text)
    if _ESCAPE not in text:
        return text
    try:
        value = loads(text)
    except ModelJsonError:
        return text
    if not has_lone_surrogate(value):
        return text
    return json.dumps(without_surrogates(value), ensure_ascii=False)
