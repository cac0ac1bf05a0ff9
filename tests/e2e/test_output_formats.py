"""`pleat -p --output-format json | stream-json`: what scripts written for Claude Code read."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import TEST_API_KEY
from pleat_process import run_pleat
from scripted_server import Error, ScriptedServer, Text, ToolCalls

from sessions.usage import UsageTally

# Slow (runs pleat as a process): left out of the fast set.
pytestmark = pytest.mark.slow

# A model litellm has prices for, so the run has a cost to compare with the journal's.
PRICED_MODEL = "gpt-4o-mini"
# Claude Code's result fields, which scripts read.
RESULT_FIELDS = {
    "type", "subtype", "is_error", "result", "session_id", "num_turns", "duration_ms",
    "total_cost_usd", "usage",
}  # fmt: skip


def pleat(workspace: Path, server: ScriptedServer, *args: str) -> subprocess.CompletedProcess[str]:
    return run_pleat(workspace, server, *args, model=f"openai/{PRICED_MODEL}")


def journal_cost(pleat_home: Path, session_id: str) -> float:
    tally = UsageTally()
    journal = pleat_home / "sessions" / session_id / "journal.jsonl"
    for line in journal.read_text().splitlines():
        record: dict[str, Any] = json.loads(line)
        if record.get("type") == "usage":
            tally.add_record(record)
    return tally.cost or 0.0


def test_json_is_one_result_object_whose_cost_is_the_journals(
    workspace: Path, pleat_home: Path
) -> None:
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        server.push(ToolCalls([("write_file", {"path": "a.txt", "content": "hi"})]), Text("done"))
        done = pleat(workspace, server, "-p", "write a.txt", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert RESULT_FIELDS <= set(result)
    assert result["type"] == "result" and result["subtype"] == "success"
    assert result["is_error"] is False and result["result"] == "done"
    assert result["num_turns"] == 2 and result["compactions"] == 0
    assert result["usage"]["input_tokens"] > 0 and result["usage"]["output_tokens"] > 0
    assert result["total_cost_usd"] > 0
    assert result["total_cost_usd"] == pytest.approx(journal_cost(pleat_home, result["session_id"]))
    assert (workspace / "a.txt").read_text() == "hi"


def test_stream_json_is_one_event_per_line(workspace: Path) -> None:
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        server.push(ToolCalls([("read_file", {"path": "missing.txt"})], text="looking"), Text("ok"))
        done = pleat(workspace, server, "-p", "look", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [(e["type"], e.get("subtype")) for e in events]
    assert kinds == [
        ("system", "init"),
        ("assistant", None),
        ("user", None),
        ("assistant", None),
        ("result", "success"),
    ]
    init, call, result, answer, final = events
    assert "read_file" in init["tools"] and init["session_id"] == final["session_id"]
    assert call["message"]["content"] == [
        {"type": "text", "text": "looking"},
        {
            "type": "tool_use",
            "id": call["message"]["content"][1]["id"],
            "name": "read_file",
            "input": {"path": "missing.txt"},
        },
    ]
    (tool_result,) = result["message"]["content"]
    assert tool_result["type"] == "tool_result" and tool_result["is_error"] is True
    assert tool_result["tool_use_id"] == call["message"]["content"][1]["id"]
    assert answer["message"]["content"] == [{"type": "text", "text": "ok"}]
    assert final["result"] == "ok"


def test_a_failed_run_is_an_error_result_with_the_usual_exit_code(workspace: Path) -> None:
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        server.push(*[Error(400, "bad request")] * 5)
        done = pleat(workspace, server, "-p", "hi", "--output-format", "json")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["is_error"] is True and result["subtype"] == "error_during_execution"
    assert result["result"] and done.stderr.startswith("pleat: error:")


def reads_then_answer() -> list[Text | ToolCalls]:
    return [
        ToolCalls([("read_file", {"path": "a.txt"})]),
        ToolCalls([("read_file", {"path": "a.txt"})]),
        Text("read twice"),
    ]


def test_the_spending_cap_stops_a_run_before_the_call_that_would_pass_it(
    workspace: Path, pleat_home: Path
) -> None:
    (workspace / "a.txt").write_text("some text\n" * 200)
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        server.push(*reads_then_answer())
        free = json.loads(pleat(workspace, server, "-p", "read", "--output-format", "json").stdout)
        full_cost = free["total_cost_usd"]
        asked = len(server.requests)
        server.push(*reads_then_answer())
        cap = full_cost / 2
        done = pleat(
            workspace, server, "-p", "read", "--output-format", "json",
            "--max-budget-usd", f"{cap:.10f}",
        )  # fmt: skip
        capped_requests = len(server.requests) - asked
    assert free["num_turns"] == 3 and full_cost > 0
    assert done.returncode == 3, done.stderr
    result = json.loads(done.stdout)
    assert result["is_error"] is True and "spending cap" in result["result"]
    assert 1 <= capped_requests < 3  # it ran, then stopped before the call that would pass
    assert result["total_cost_usd"] <= cap
    assert journal_cost(pleat_home, result["session_id"]) <= cap
    assert "pleat: error: the spending cap of $" in done.stderr


def test_a_cap_below_the_first_call_sends_nothing(workspace: Path) -> None:
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        done = pleat(workspace, server, "-p", "hi", "--max-budget-usd", "0.0000001")
        assert server.requests == []
    assert done.returncode == 3 and done.stderr.count("\n") == 1, done.stderr


def test_a_slash_command_streams_its_init_and_a_failure_is_its_result(workspace: Path) -> None:
    """A headless slash command in stream-json opens with the init line like a turn; when it
    fails, its error line is the result, not an empty string."""
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        server.push(Text("hello"))
        assert pleat(workspace, server, "-p", "hi").returncode == 0
        done = pleat(
            workspace, server, "-p", "/rewind 9", "--continue", "--output-format", "stream-json"
        )
    assert done.returncode == 2, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(line["type"], line.get("subtype")) for line in lines] == [
        ("system", "init"),
        ("result", "error_during_execution"),
    ]
    assert lines[-1]["is_error"] is True
    assert lines[-1]["result"] == "there is no turn 9: this conversation has 1"
