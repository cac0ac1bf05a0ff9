"""Result facts: real tool runs report exit codes, timeouts, cut outputs and files as fields, the
tool message keeps them, and the journal and the archive give them back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.compaction.ledger import update_ledger
from agent.model.llm import LLM
from agent.model.settings import ModelSettings
from agent.model.tokens import count_text
from agent.permissions.policy import approve_all
from agent.turn.loop import Agent
from sessions.archive import ChunkArchive
from sessions.journal import Journal, replay_journal
from sessions.messages import Message, ToolCall, tool_result
from sessions.outputs import KeptOutputs
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tools.base import ToolContext, ToolOutput
from tools.output_budget import OutputBudget
from tools.registry import default_registry
from tools.result_facts import FACTS_KEY, ReadStamp, ResultFacts

# A budget small enough that a few thousand lines of output are cut (tokens).
SMALL_BUDGET = 600


@pytest.fixture
def ctx(workspace: Path, tmp_path: Path) -> ToolContext:
    outputs = KeptOutputs(tmp_path / "outputs")
    return ToolContext(workspace, OutputBudget(SMALL_BUDGET, count_text), outputs)


async def run(ctx: ToolContext, name: str, args: dict[str, object]) -> ToolOutput:
    return await default_registry().dispatch(name, args, ctx)


async def test_a_failing_command_reports_its_exit_code(ctx: ToolContext) -> None:
    out = await run(ctx, "run_command", {"command": "echo building; echo boom >&2; exit 3"})
    assert out.is_error
    assert out.facts == ResultFacts(exit_code=3, text_after_output="\nexit code: 3")
    assert out.facts.output_of(out.text) == "building\nboom"
    passed = await run(ctx, "run_command", {"command": "true"})
    assert (passed.is_error, passed.facts.exit_code, passed.facts.timed_out) == (False, 0, False)


async def test_a_timeout_is_a_fact_not_an_exit_code(ctx: ToolContext) -> None:
    out = await run(ctx, "run_command", {"command": "echo started; sleep 30", "timeout": 1})
    assert out.is_error and out.facts.timed_out and out.facts.exit_code is None
    assert out.facts.output_of(out.text) == "started"
    assert out.facts.text_after_output.startswith("\ntimed out after 1 s")


async def test_file_tools_name_their_files(ctx: ToolContext, workspace: Path) -> None:
    written = await run(ctx, "write_file", {"path": "./pkg/notes.md", "content": "one\ntwo\n"})
    assert written.facts == ResultFacts(files_written=("pkg/notes.md",))
    edited = await run(
        ctx, "edit_file", {"path": "pkg/notes.md", "old_string": "two", "new_string": "2"}
    )
    assert edited.facts == ResultFacts(files_edited=("pkg/notes.md",))
    read = await run(ctx, "read_file", {"path": str(workspace / "pkg" / "notes.md")})
    info = (workspace / "pkg" / "notes.md").stat()
    stamp = ReadStamp(1, 2000, info.st_size, info.st_mtime_ns)  # the lines asked, the file read
    assert read.facts == ResultFacts(files_read=("pkg/notes.md",), read_stamp=stamp)
    missing = await run(ctx, "read_file", {"path": "nowhere.py"})
    assert missing.is_error and missing.facts == ResultFacts()  # nothing was read


async def test_a_cut_output_says_so_and_where_it_is_kept(ctx: ToolContext) -> None:
    out = await run(ctx, "run_command", {"command": "seq 1 5000; exit 1"})
    assert out.facts.truncated and out.facts.kept_output == 1
    assert (out.facts.exit_code, out.facts.text_after_output) == (1, "\nexit code: 1")
    assert out.text.endswith("5000\nexit code: 1")  # the status survives the cut
    assert ctx.outputs is not None and ctx.outputs.read(1).startswith("1\n2\n3\n")
    small = await run(ctx, "run_command", {"command": "echo hi"})
    assert not small.facts.truncated and small.facts.kept_output is None


def messages_of(calls: list[tuple[ToolCall, ToolOutput]]) -> list[Message]:
    """The history the agent loop records: each call, then its result with its meta."""
    history: list[Message] = [Message("user", "tidy the notes", id="m1")]
    for call, output in calls:
        history.append(Message("assistant", None, (call,), id=f"m{len(history) + 1}"))
        result = tool_result(call, output.text, **output.message_meta())
        result.id = f"m{len(history) + 1}"
        history.append(result)
    return history


async def test_the_ledger_reads_real_results(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    steps = [
        ("read_file", {"path": "./calc.py"}),
        ("edit_file", {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}),
        ("write_file", {"path": "NOTES.md", "content": "fixed\n"}),
        ("read_file", {"path": "missing.py"}),
        ("run_command", {"command": "echo 'exit code: 7'; exit 2"}),
    ]
    calls = []
    for number, (name, args) in enumerate(steps):
        call = ToolCall(f"call_{number}", name, json.dumps(args))
        calls.append((call, await run(ctx, name, args)))
    ledger = update_ledger(None, messages_of(calls))
    assert (ledger.files_read, ledger.files_edited) == (["calc.py"], ["calc.py"])
    assert ledger.files_written == ["NOTES.md"]
    assert ledger.commands == [("echo 'exit code: 7'; exit 2", 2)]
    # The program's own line that looks like a status stays; pleat's status line does not.
    assert ledger.last_error == (
        "run_command `echo 'exit code: 7'; exit 2` (exit code 2) in m11: exit code: 7"
    )


# The call whose results the round trips carry.
MAKE = ToolCall("call_1", "run_command", '{"command": "make"}')


async def test_the_agent_keeps_the_facts_on_its_tool_messages(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "a.py").write_text("print(1)\n")
    server.push(
        ToolCalls([("read_file", {"path": "a.py"}), ("run_command", {"command": "exit 4"})]),
        Text("done"),
    )
    registry = default_registry()
    settings = ModelSettings(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY)
    agent = Agent(
        LLM(settings), registry, workspace, approve_all, "You code.", max_tool_iterations=5
    )
    _ = [event async for event in agent.run_turn("run it")]
    results = [m for m in agent.history if m.role == "tool"]
    info = (workspace / "a.py").stat()
    assert [ResultFacts.of_message(m.meta) for m in results] == [
        ResultFacts(files_read=("a.py",), read_stamp=ReadStamp(1, 2000, 9, info.st_mtime_ns)),
        ResultFacts(exit_code=4, text_after_output="\nexit code: 4"),
    ]
    assert [m.meta["is_error"] for m in results] == [False, True]
    sent = server.requests[1].messages
    assert all(set(m) <= {"role", "content", "tool_calls", "tool_call_id", "name"} for m in sent)
    ledger = update_ledger(None, agent.history)
    assert (ledger.files_read, ledger.commands) == (["a.py"], [("exit 4", 4)])


def facts_message(facts: ResultFacts, message_id: str = "m3") -> Message:
    output = ToolOutput("compiling\nexit code: 2", is_error=True, facts=facts)
    message = tool_result(MAKE, output.text, **output.message_meta())
    message.id = message_id
    return message


RICH = ResultFacts(
    exit_code=2,
    truncated=True,
    kept_output=4,
    files_read=("a.py", "ü/b.py"),
    text_before_output="<returncode>2</returncode>\n",
    text_after_output="\nexit code: 2",
)


def test_the_journal_keeps_the_facts(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.header(id="s")
    for number, facts in enumerate([RICH, ResultFacts()]):
        journal.message(Message("assistant", None, (MAKE,), id=f"m{2 * number + 1}"))
        journal.message(facts_message(facts, f"m{2 * number + 2}"))
    journal.close()
    results = [m for m in replay_journal(journal.path).history if m.role == "tool"]
    assert [ResultFacts.of_message(m.meta) for m in results] == [RICH, ResultFacts()]
    assert [m.meta["is_error"] for m in results] == [True, True]


def test_the_archive_keeps_the_facts(tmp_path: Path) -> None:
    archive = ChunkArchive(tmp_path / "chunks", "s")
    message = facts_message(RICH)
    info = archive.write_chunk([message], topics="make", tokens=10)
    (back,) = archive.read_messages(info.number)
    assert ResultFacts.of_message(back.meta) == RICH
    assert back.meta == message.meta


def test_messages_without_facts_and_damaged_facts() -> None:
    assert ResultFacts.of_message({"is_error": True}) is None  # journaled before facts
    assert ResultFacts.of_message({FACTS_KEY: "junk"}) is None
    damaged = {"exit_code": "2", "timed_out": 1, "files_read": ["a", 3], "text_after_output": 0}
    assert ResultFacts.from_dict(damaged) == ResultFacts(files_read=("a",))
    assert ResultFacts().to_dict() == {}
    assert ResultFacts.from_dict(json.loads(json.dumps(RICH.to_dict()))) == RICH


def test_output_of_leaves_text_that_lost_its_framing() -> None:
    facts = ResultFacts(text_before_output="<output>\n", text_after_output="\nexit code: 1")
    assert facts.output_of("<output>\nboom\nexit code: 1") == "boom"
    stub = "[pleat: this output was shrunk]\n<output>\nbo\n[...]"
    assert facts.output_of(stub) == stub
