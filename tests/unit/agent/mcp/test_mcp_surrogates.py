"""A line the SDK refuses is read anyway only when lone surrogates were all that was wrong."""

from __future__ import annotations

import pytest
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

from agent.mcp.surrogates import readable


def refusal(line: str) -> Exception:
    """The error the SDK's parser gives for `line` (what its stdio and HTTP readers pass on)."""
    with pytest.raises(ValueError) as caught:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    return caught.value


def test_lone_surrogates_in_values_and_keys_become_replacement_characters() -> None:
    line = '{"jsonrpc": "2.0", "id": 7, "result": {"t\\udc00": ["a \\ud800 b", "\\ud83d\\ude00"]}}'
    message = readable(refusal(line))
    assert isinstance(message, SessionMessage)
    dumped = message.message.model_dump(by_alias=True)
    assert dumped["id"] == 7
    assert dumped["result"] == {"t\ufffd": ["a \ufffd b", "\U0001f600"]}  # a pair stays whole


@pytest.mark.parametrize(
    "line",
    [
        '{"jsonrpc": "2.0", "id": 7, "result": ',  # cut short: not JSON at all
        '{"jsonrpc": "2.0", "result": {"x": "\\ud800"}}',  # no id nor method: not JSON-RPC
        "[" * 100_000 + "]" * 100_000,  # nested past the interpreter's recursion
    ],
    ids=["cut short", "not JSON-RPC", "nested too deep"],
)
def test_anything_else_stays_the_error_it_was(line: str) -> None:
    error = refusal(line)
    assert readable(error) is error


def test_an_error_that_is_not_a_parsers_stays_as_it_was() -> None:
    error = RuntimeError("the stream broke")
    assert readable(error) is error
