"""A streamed reply put back together holds no lone surrogate: tool calls and reasoning alike."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from agent.model.reasoning import ReasoningAssembler
from agent.model.stream_assembly import ToolCallAssembler
from sessions.lone_surrogates import has_lone_surrogate, mended_json


def tool_delta(index: int, *, arguments: str = "", name: str = "", id: str = "") -> Any:
    """A tool-call delta as litellm streams it (attributes, not keys)."""
    return SimpleNamespace(
        index=index, id=id, function=SimpleNamespace(name=name, arguments=arguments)
    )


def sendable(value: Any) -> bool:
    """Whether `value` encodes as a UTF-8 request body (httpx writes JSON with
    ensure_ascii=False, which is where a lone surrogate failed)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_lone_surrogates_in_a_tool_call_become_replacement_characters() -> None:
    raw = '{"path": "a\ud800.txt", "note": "\\udc00 and \\ud83d\\ude00"}'  # raw, then escaped
    calls = ToolCallAssembler()
    calls.add(tool_delta(0, id="call_\udfff", name="write\ud800file"))
    for start in range(0, len(raw), 5):  # split inside the escapes, as a stream may
        calls.add(tool_delta(0, arguments=raw[start : start + 5]))
    (call,) = calls.calls()
    assert (call.id, call.name) == ("call_\ufffd", "write\ufffdfile")
    assert call.parsed_arguments() == {"path": "a\ufffd.txt", "note": "\ufffd and \U0001f600"}
    assert sendable(call.to_api()) and "\\u" not in call.arguments


def test_arguments_without_a_lone_surrogate_keep_their_exact_text() -> None:
    for text in ['{"a": "\\u00e9\\ud83d\\ude00",  "n": 1.50}', '{"cut": "\\ud800', "not json"]:
        calls = ToolCallAssembler()
        calls.add(tool_delta(0, id="c", name="grep", arguments=text))
        assert calls.calls()[0].arguments == text  # a cut one is plain ASCII: it can be sent


def test_mended_arguments_are_json_of_the_same_value() -> None:
    text = '{"list": ["\\ud800", {"k\\udbff": [1, true, null, 2.5]}], "é": "ok"}'
    assert json.loads(mended_json(text)) == {
        "list": ["\ufffd", {"k\ufffd": [1, True, None, 2.5]}],
        "é": "ok",
    }


@pytest.mark.parametrize("shape", [dict, lambda **kw: SimpleNamespace(**kw)])
def test_lone_surrogates_in_reasoning_and_thinking_become_replacement_characters(
    shape: Any,
) -> None:
    plain = ReasoningAssembler()
    assert plain.add(shape(reasoning_content="why \ud800")) == "why \ufffd"
    assert plain.result() == ((), "why \ufffd")
    signed = ReasoningAssembler()
    block = shape(type="thinking", thinking="think \udc00", signature=None)
    assert signed.add(shape(thinking_blocks=[block])) == "think \ufffd"
    signed.add(shape(thinking_blocks=[shape(type="thinking", thinking="", signature="s\ud800")]))
    blocks, _ = signed.result()
    assert blocks == ({"type": "thinking", "thinking": "think \ufffd", "signature": "s\ufffd"},)
    assert not has_lone_surrogate(list(blocks)) and sendable(list(blocks))
