"""Replay's adapter: recorded results get the facts pleat's tools give, read from their format."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from agent.replay.recorded import adapt_results, read_sessions, result_facts
from sessions.messages import Message, ToolCall
from tools.result_facts import FACTS_KEY, ResultFacts

BASH = ToolCall("call_1", "bash", '{"command": "python a.py"}')
# Results in mini-swe-agent's formats, as the recorded sessions hold them.
FAILED = "<returncode>1</returncode>\n<output>\nTraceback\nNameError: x\n</output>"
LONG = (
    "<returncode>0</returncode>\n<warning>\nThe output of your last command was too long.\n"
    "</warning><output_head>\nrow 1\n</output_head>\n<elided_chars>\n900 characters elided\n"
    "</elided_chars>\n<output_tail>\nrow 99\n</output_tail>"
)
TIMED_OUT = (
    "The last command <command>python slow.py\n--all</command> timed out and has been killed.\n"
    "The output of the command was:\n <output>\nstarted\n\n</output>\n"
    "Please try another command and make sure to avoid those requiring interactive input."
)
SUBMITTED = "diff --git a/a.py b/a.py\n+fixed"


def test_a_returncode_becomes_the_exit_code() -> None:
    facts = result_facts(BASH, FAILED)
    assert facts.exit_code == 1 and not facts.timed_out
    assert facts.output_of(FAILED) == "Traceback\nNameError: x"
    assert result_facts(BASH, "<returncode>0</returncode>").exit_code == 0


def test_a_long_output_keeps_its_code_and_loses_its_closing_tag() -> None:
    facts = result_facts(BASH, LONG)
    assert facts.exit_code == 0
    assert facts.output_of(LONG).startswith("<warning>\n")
    assert facts.output_of(LONG).endswith("<output_tail>\nrow 99")


def test_a_timeout_note_becomes_a_timeout() -> None:
    facts = result_facts(BASH, TIMED_OUT)
    assert facts.timed_out and facts.exit_code is None
    assert facts.output_of(TIMED_OUT) == "started\n"


def test_a_result_without_a_status_says_nothing() -> None:
    assert result_facts(BASH, SUBMITTED) == ResultFacts()
    assert result_facts(None, "orphan") == ResultFacts()


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("view", ResultFacts(files_read=("/repo/a.py",))),
        ("create", ResultFacts(files_written=("/repo/a.py",))),
        ("str_replace", ResultFacts(files_edited=("/repo/a.py",))),
        ("insert", ResultFacts(files_edited=("/repo/a.py",))),
        ("undo_edit", ResultFacts(files_edited=("/repo/a.py",))),
        ("explode", ResultFacts()),
    ],
)
def test_editor_actions_name_their_file(action: str, expected: ResultFacts) -> None:
    call = ToolCall(
        "call_1", "str_replace_editor", json.dumps({"command": action, "path": "/repo/a.py"})
    )
    assert result_facts(call, "<returncode>0</returncode>") == expected


def conversation(results: list[str]) -> list[Message]:
    messages = [Message("user", "fix it", id="m1")]
    for number, text in enumerate(results):
        call = ToolCall(f"call_{number}", "bash", json.dumps({"command": f"step {number}"}))
        messages.append(Message("assistant", None, (call,), id=f"m{len(messages) + 1}"))
        messages.append(
            Message("tool", text, tool_call_id=call.id, name="bash", id=f"m{len(messages) + 1}")
        )
    return messages


def test_adapting_marks_every_result_like_pleats_own() -> None:
    messages = conversation([FAILED, LONG, TIMED_OUT, SUBMITTED])
    adapted = adapt_results(messages)
    results = [m for m in adapted if m.role == "tool"]
    assert [ResultFacts.of_message(m.meta) for m in results] == [
        result_facts(None, m.content or "") for m in results
    ]
    assert [m.meta["is_error"] for m in results] == [True, False, True, False]
    # The text is what the model saw: replay sends it unchanged.
    assert [m.content for m in adapted] == [m.content for m in messages]
    assert all(not m.meta for m in messages)  # the input is left alone
    # Results that already carry facts (pleat's own) are not read again.
    assert adapt_results(adapted) == adapted


@pytest.mark.parametrize("name", ["sessions.jsonl", "sessions.jsonl.gz"])
def test_read_sessions_adapts_what_it_loads(tmp_path: Path, name: str) -> None:
    records = [m.to_api() for m in conversation([FAILED, SUBMITTED])]
    line = json.dumps({"instance_id": "demo", "messages": records}) + "\n"
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(line)
    else:
        path.write_text(line, encoding="utf-8")
    (session,) = read_sessions(path)
    results = [m for m in session.messages if m.role == "tool"]
    assert [ResultFacts.of_message(m.meta) for m in results] == [
        result_facts(None, FAILED),
        ResultFacts(),
    ]
    assert all(FACTS_KEY in m.meta for m in results)
