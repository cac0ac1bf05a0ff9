"""The status line's input: Claude Code's documented keys, with their types, from pleat's facts."""

from __future__ import annotations

import json
from pathlib import Path

from agent.status_line.payload import StatusFacts, status_payload
from sessions.usage import Usage, UsageTally


def facts(**changes: object) -> StatusFacts:
    tally = UsageTally()
    call = Usage(
        prompt_tokens=9_000,
        completion_tokens=300,
        cached_tokens=6_000,
        cache_creation_tokens=1_000,
        cost=0.25,
        api_ms=1_500,
    )
    tally.add(call)
    values: dict[str, object] = {
        "session_id": "20260101-000000-abcdef",
        "transcript_path": Path("/home/u/.local/share/pleat/sessions/x/journal.jsonl"),
        "workspace": Path("/work/project"),
        "model": "anthropic/claude-sonnet-4-5",
        "usage": tally,
        "last_call": call,
        "context_used": 50_000,
        "context_window": 200_000,
        "duration_ms": 12_345,
    }
    values.update(changes)
    return StatusFacts(**values)  # type: ignore[arg-type]


def test_every_documented_key_with_its_type() -> None:
    payload = json.loads(json.dumps(status_payload(facts())))  # as the command reads it
    assert payload["hook_event_name"] == "Status"
    assert payload["session_id"] == "20260101-000000-abcdef"
    assert payload["transcript_path"].endswith("journal.jsonl")
    assert payload["cwd"] == "/work/project"
    assert payload["model"] == {
        "id": "anthropic/claude-sonnet-4-5",
        "display_name": "claude-sonnet-4-5",
    }
    assert payload["workspace"] == {"current_dir": "/work/project", "project_dir": "/work/project"}
    assert isinstance(payload["version"], str) and payload["version"]
    assert payload["output_style"] == {"name": "default"}
    assert payload["cost"] == {
        "total_cost_usd": 0.25,
        "total_duration_ms": 12_345,
        "total_api_duration_ms": 1_500,
        "total_lines_added": None,  # not counted by pleat: null, never a made-up 0
        "total_lines_removed": None,
    }
    assert payload["context_window"] == {
        "total_input_tokens": 9_000,
        "total_output_tokens": 300,
        "context_window_size": 200_000,
        "used_percentage": 25,
        "remaining_percentage": 75,
        "current_usage": {
            "input_tokens": 2_000,  # Anthropic's meaning: without what the cache read or wrote
            "output_tokens": 300,
            "cache_creation_input_tokens": 1_000,
            "cache_read_input_tokens": 6_000,
        },
    }
    assert payload["exceeds_200k_tokens"] is False


def test_before_the_first_call_what_is_unknown_is_null() -> None:
    payload = status_payload(
        facts(
            usage=UsageTally(),
            last_call=None,
            context_used=None,
            context_window=None,
            transcript_path=None,
        )
    )
    assert payload["transcript_path"] is None
    assert payload["cost"]["total_cost_usd"] is None  # no call, no price known
    window = payload["context_window"]
    assert (window["total_input_tokens"], window["total_output_tokens"]) == (0, 0)
    assert window["context_window_size"] is None and window["used_percentage"] is None
    assert window["remaining_percentage"] is None and window["current_usage"] is None
    assert payload["exceeds_200k_tokens"] is False


def test_past_200k_tokens_of_context_is_said() -> None:
    payload = status_payload(facts(context_used=200_001, context_window=1_000_000))
    assert payload["exceeds_200k_tokens"] is True
    assert payload["context_window"]["used_percentage"] == 20
    assert status_payload(facts(model="gpt-4o"))["model"]["display_name"] == "gpt-4o"
