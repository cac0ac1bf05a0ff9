"""Tool-call arguments the model crafts: parsed with limits, refused with one line, never raised."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sessions.archive_query import call_text
from sessions.messages import ToolCall
from sessions.model_json import MAX_DEPTH, ModelJsonError, loads, nesting_depth
from tests.support.hostile_inputs import HOSTILE_ARGUMENTS
from tools.base import ToolContext
from tools.registry import default_registry


@pytest.mark.parametrize("name", list(HOSTILE_ARGUMENTS))
def test_hostile_json_is_one_clear_error(name: str) -> None:
    text, words = HOSTILE_ARGUMENTS[name]
    with pytest.raises(ModelJsonError, match=words):
        loads(text)
    call = ToolCall("c1", "read_file", text)
    assert call.parsed_arguments() == {}  # what the TUI, the ledger and replay use
    assert call_text(call) == text  # what the archive search reads


def test_nesting_ignores_brackets_inside_strings() -> None:
    assert nesting_depth('{"a": "[[[[{{{{", "b": [1, [2]]}') == 3
    assert loads('{"a": "' + "[" * 1_000 + '"}') == {"a": "[" * 1_000}
    assert nesting_depth("[" * (MAX_DEPTH + 50)) == MAX_DEPTH + 1  # counting stops past the limit


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (HOSTILE_ARGUMENTS["huge integer"][0], "not valid JSON (an integer of 5,001 digits"),
        (HOSTILE_ARGUMENTS["deep nesting"][0], "not valid JSON (nested more than 64"),
        ('{"path": "a.txt", "offset": 1000000000000000000}', "must be between -2**53"),
        ('{"path": "\\ud800.txt"}', "invalid character (a lone UTF-16 surrogate)"),
    ],
    ids=["huge-integer", "deep-nesting", "unsafe-integer", "lone-surrogate"],
)
async def test_a_hostile_call_is_a_tool_error_the_model_reads(
    workspace: Path, raw: str, words: str
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    output = await asyncio.wait_for(
        default_registry().dispatch("read_file", raw, ToolContext(workspace)), timeout=30
    )
    assert output.is_error and words in output.text, output.text
    assert len(output.text) < 400
