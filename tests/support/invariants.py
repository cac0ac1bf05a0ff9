"""Checks every history must pass, shared by the loop, compaction and replay tests."""

from __future__ import annotations

import itertools
from typing import Any

from sessions.messages import Message, provider_messages


def assert_provider_valid(sent: list[dict[str, Any]]) -> None:
    """What a strict provider requires: system first, then a user message; never two user
    messages in a row; every tool result answers a call of the assistant message just before
    its group; every call answered before the next non-tool message."""
    assert sent and sent[0]["role"] == "system", "system message first"
    if len(sent) > 1:
        assert sent[1]["role"] == "user", f"first after system is {sent[1]['role']}"
    open_calls: set[str] = set()
    for before, message in itertools.pairwise(sent):
        role = message["role"]
        assert not (before["role"] == "user" and role == "user"), "two user messages in a row"
        if role == "tool":
            assert message["tool_call_id"] in open_calls, "orphan tool result"
            open_calls.discard(message["tool_call_id"])
            continue
        assert not open_calls, f"tool calls left unanswered: {sorted(open_calls)}"
        if role == "assistant":
            open_calls = {c["id"] for c in message.get("tool_calls") or ()}


def assert_history_valid(history: list[Message]) -> None:
    """A live history: valid as sent, ids unique, and the last call answered."""
    sent = provider_messages(history)
    assert_provider_valid(sent)
    last = sent[-1]
    assert not last.get("tool_calls"), "the history ends with unanswered tool calls"
    ids = [m.id for m in history]
    assert len(set(ids)) == len(ids), "duplicate message ids"
