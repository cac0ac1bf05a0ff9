"""`pleat -p --output-format json | stream-json`: what scripts written for Claude Code read, checked
with Claude Code's own SDK (claude-agent-sdk): its parser takes every line, and its TypedDicts
say which keys the init line and each model's usage must have."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolUseBlock,
    UserMessage,
)
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk.types import ModelUsage, SystemInitData

from sessions.usage import UsageTally
from tests.support.constants import TEST_API_KEY
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import Error, Reply, ScriptedServer, Text, ToolCalls
from tests.support.subagent_support import is_subagent

# Slow (pleat's headless runs): left out of the fast set.
pytestmark = pytest.mark.slow

# A model litellm has prices for, so the run has a cost to compare with the journal's.
PRICED_MODEL = "gpt-4o-mini"
# Claude Code's result fields, which scripts read.
RESULT_FIELDS = {
    "type", "subtype", "is_error", "result", "session_id", "num_turns", "duration_ms",
    "total_cost_usd", "usage",
}  # fmt: skip
# Anthropic's usage fields, on each reply and the result.
USAGE_KEYS = {
    "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens",
}  # fmt: skip
# The class the SDK's parser makes of each line type.
PARSED_AS = {
    "system": SystemMessage, "assistant": AssistantMessage, "user": UserMessage,
    "result": ResultMessage,
}  # fmt: skip
# What the compression instruction starts with: the fold's request (agent/compaction).
COMPRESSION_MARK = "[pleat: context compaction"
# A fold when the history reaches ten messages (after the fourth tool call, before the fifth
# model call), keeping two: a fold at a known step of the run, whatever the token counts.
FOLD_AT_TEN_MESSAGES = ("--compaction", "max_messages=10", "--compaction", "tail_messages=2")
# The parent's calls of the run with every kind of line: a read, a command that
# --permission-mode acceptEdits refuses headless, a sub-agent, a listing, a read after the fold.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "a.txt"}),
    ("run_command", {"command": "echo hi"}),
    ("task", {"description": "check a", "prompt": "read a.txt"}),
    ("list_dir", {}),
    ("read_file", {"path": "a.txt"}),
]


class EveryKindOfLine:
    """The scripted model of that run: the parent makes the calls one a reply (text with the
    first), then answers; the sub-agent reads a.txt, then answers; a fold gets its summary."""

    def __init__(self) -> None:
        self.replies: list[Reply] = [ToolCalls([CALLS[0]], text="looking")]
        self.replies += [ToolCalls([call]) for call in CALLS[1:]]

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        if COMPRESSION_MARK in str(messages[-1]["content"]):
            return Text("<topics>files</topics><summary>read a.txt, ran a task</summary>")
        if is_subagent(body):
            done = len(messages) > 2
            return Text("a.txt says hi") if done else ToolCalls([("read_file", {"path": "a.txt"})])
        return self.replies.pop(0) if self.replies else Text("all done")


def parsed(stdout: str) -> list[tuple[dict[str, Any], Any]]:
    """Every line of the output, and what Claude Code's SDK parser makes of it (each a message
    of the class its type names: the parser skips a type it does not know)."""
    assert stdout.isascii()
    lines = [json.loads(line) for line in stdout.splitlines()]
    messages = [(line, parse_message(line)) for line in lines]
    for line, message in messages:
        assert isinstance(message, PARSED_AS[line["type"]]), line
    return messages


def check_result(result: dict[str, Any]) -> ResultMessage:
    """A result the SDK reads, with Claude Code's fields, each model's usage complete."""
    message = parse_message(result)
    assert isinstance(message, ResultMessage)
    assert RESULT_FIELDS <= set(result) and result["uuid"]
    assert set(result["usage"]) == USAGE_KEYS
    assert message.model_usage is not None and set(message.model_usage) == {
        f"openai/{PRICED_MODEL}"
    }
    (usage,) = message.model_usage.values()
    assert ModelUsage.__required_keys__ <= set(usage)
    assert usage["costUSD"] == pytest.approx(result["total_cost_usd"])
    assert usage["inputTokens"] == result["usage"]["input_tokens"] > 0
    assert 0 < message.duration_api_ms <= message.duration_ms
    return message


def the_denial(call_id: str) -> dict[str, Any]:
    """The result's permission_denials entry of the refused `echo hi`."""
    command = {"command": "echo hi"}
    return {
        "tool_name": "Bash", "tool_use_id": call_id, "tool_input": command,
        "pleat_name": "run_command", "pleat_input": command,
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


def every_kind_of_line(
    workspace: Path, output_format: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    """The run of EveryKindOfLine in `output_format`, as Claude Code's scripts start it: in
    acceptEdits mode (Claude Code's name) without the sandbox, so the command is refused
    headless (a sandboxed one would run)."""
    (workspace / "a.txt").write_text("hi\n")
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        server.fallback = EveryKindOfLine()
        return run_pleat(
            workspace, server, "-p", "look around", "--output-format", output_format,
            "--permission-mode", "acceptEdits", "--sandbox", "off", *FOLD_AT_TEN_MESSAGES, *extra,
            model=f"openai/{PRICED_MODEL}", yes=False,
        )  # fmt: skip


def test_stream_json_is_what_claude_codes_sdk_reads(workspace: Path) -> None:
    """Every line of a run with tool calls, a refused call, a sub-agent and a fold parses with
    the SDK, in Claude Code's shapes: tools under Claude Code's names (pleat's beside), the
    sub-agent's messages under its task call, the fold a compact_boundary."""
    done = every_kind_of_line(workspace, "stream-json", "--verbose")
    assert done.returncode == 0, done.stderr
    lines = parsed(done.stdout)
    init, result = lines[0][0], lines[-1][0]
    session = init["session_id"]
    assert [line["type"] for line, _ in lines[1:-1]] == [
        *["assistant", "user"] * 2,  # the read, the refused command
        "assistant",  # the task call
        "user", "assistant", "user", "assistant",  # the sub-agent's prompt, read, answer
        "user",  # the task's result
        *["assistant", "user"],  # the listing
        "system",  # the fold
        *["assistant", "user", "assistant"],  # the read after it, the answer
    ]  # fmt: skip
    assert SystemInitData.__required_keys__ <= set(init) and init["subtype"] == "init"
    assert init["permissionMode"] == "acceptEdits"
    assert init["pleat_permission_mode"] == "accept-edits"
    assert {"Read", "Bash", "Task", "read_archive"} <= set(init["tools"])
    assert "read_file" in init["pleat_tools"] and "compact" in init["slash_commands"]

    replies = [(line, msg) for line, msg in lines if isinstance(msg, AssistantMessage)]
    for line, reply in replies:
        assert reply.usage is not None and set(reply.usage) == USAGE_KEYS
        assert reply.stop_reason in ("tool_use", "end_turn") and line["uuid"]
        assert reply.session_id == session and reply.model == f"openai/{PRICED_MODEL}"
    read, refused, task = (reply.content[-1] for _, reply in replies[:3])
    assert isinstance(read, ToolUseBlock) and replies[0][1].content[0] == TextBlock("looking")
    assert (read.name, read.input) == ("Read", {"file_path": str(workspace / "a.txt")})
    block = replies[0][0]["message"]["content"][1]
    assert (block["pleat_name"], block["pleat_input"]) == ("read_file", {"path": "a.txt"})
    assert isinstance(refused, ToolUseBlock) and isinstance(task, ToolUseBlock)
    assert (refused.name, task.name) == ("Bash", "Task")

    under_task = [msg for _, msg in lines if getattr(msg, "parent_tool_use_id", None)]
    assert {msg.parent_tool_use_id for msg in under_task} == {task.id}
    prompt, sub_read, sub_result, sub_answer = under_task
    assert prompt.content == [TextBlock("read a.txt")]
    assert sub_answer.content == [TextBlock("a.txt says hi")]
    assert sub_read.content[0].name == "Read"
    assert sub_result.content[0].tool_use_id == sub_read.content[0].id

    (fold,) = [line for line, _ in lines[1:-1] if line["type"] == "system"]
    assert fold["subtype"] == "compact_boundary" and fold["session_id"] == session
    assert fold["compact_metadata"] == {"trigger": "auto", "pre_tokens": fold["tokens_before"]}
    assert fold["chunk"] == 1 and fold["folded_messages"] > 0 and fold["uuid"]

    final = check_result(result)
    assert final.subtype == "success" and final.result == "all done" and not final.is_error
    assert final.permission_denials == [the_denial(refused.id)]
    assert result["compactions"] == 1 and final.num_turns == len(CALLS) + 1


def test_json_is_one_result_object_whose_cost_is_the_journals(
    workspace: Path, pleat_home: Path
) -> None:
    """The same run as one result object, stopped by --max-tool-iterations after its fold:
    Claude Code's error_max_turns, read by the SDK; its cost is the journal's (the fold's and
    the sub-agent's calls included)."""
    done = every_kind_of_line(workspace, "json", "--max-tool-iterations", str(len(CALLS)))
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    final = check_result(result)
    assert final.subtype == "error_max_turns" and final.is_error and final.result
    assert final.errors == [final.result] and "max_tool_iterations" in final.result
    assert final.num_turns == len(CALLS) and result["compactions"] == 1
    (denial,) = final.permission_denials or []
    assert denial == the_denial(denial["tool_use_id"])
    assert final.total_cost_usd == pytest.approx(journal_cost(pleat_home, final.session_id))


def test_a_failed_run_is_an_error_result_not_an_assistant_message(workspace: Path) -> None:
    """A request the provider refuses: stream-json says the run started and failed; the note
    that closes the turn for the model is not shown as the model's."""
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        server.push(*[Error(400, "bad request")] * 5)
        done = pleat(workspace, server, "-p", "hi", "--output-format", "stream-json", "--verbose")
    assert done.returncode == 1, done.stderr
    lines = parsed(done.stdout)
    assert [line["type"] for line, _ in lines] == ["system", "result"]
    result = lines[-1][1]
    assert result.is_error and result.subtype == "error_during_execution"
    assert result.errors == [result.result] and result.result
    assert done.stderr.startswith("pleat: error:")


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
    assert result["subtype"] == "error_max_budget_usd"  # Claude Code's, for --max-budget-usd
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
    fails, its error line is the result, not an empty string; /compact's fold is a manual
    compact_boundary."""
    with ScriptedServer(api_key=TEST_API_KEY, models={PRICED_MODEL}) as server:
        server.push(Text("hello"), Text("<topics>greeting</topics><summary>said hi</summary>"))
        assert pleat(workspace, server, "-p", "hi").returncode == 0
        done = pleat(
            workspace, server, "-p", "/rewind 9", "--continue", "--output-format", "stream-json"
        )
        folded = pleat(
            workspace, server, "-p", "/compact", "--continue", "--output-format", "stream-json",
            "--compaction", "tail_messages=1",
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(line["type"], line.get("subtype")) for line in lines] == [
        ("system", "init"),
        ("result", "error_during_execution"),
    ]
    assert lines[-1]["is_error"] is True
    assert lines[-1]["result"] == "there is no turn 9: this conversation has 1"
    assert folded.returncode == 0, folded.stderr
    init, fold, result = (line for line, _ in parsed(folded.stdout))
    assert init["subtype"] == "init"
    assert fold["subtype"] == "compact_boundary" and fold["compact_metadata"]["trigger"] == "manual"
    assert result["subtype"] == "success" and result["compactions"] == 1
    assert "chunk 1" in result["result"] and result["modelUsage"]
