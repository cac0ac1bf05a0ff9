"""Replay gives recorded bash sessions pleat's notes for unchanged re-reads: a file view run again
with the same output while the earlier result is live, and nothing since naming the file."""

from __future__ import annotations

import json
from pathlib import Path

from agent.compaction.policy import CompactionPolicy
from agent.replay.recorded import adapt_results, read_sessions
from agent.replay.rereads import note_for, viewed_path
from agent.replay.strategies import run_strategy
from sessions.messages import Message, ToolCall
from tools.rereads import EarlierRead, unchanged_note
from tools.result_facts import ResultFacts

VIEW = "nl -ba src/a.py | sed -n '10,40p'"
OUTPUT = "<returncode>0</returncode>\n<output>\n" + "".join(
    f"    {n}\tline {n} of a.py\n" for n in range(10, 41)
)


def bash(command: str) -> ToolCall:
    return ToolCall("", "bash", json.dumps({"command": command}))


def session(*steps: tuple[str, str]) -> list[Message]:
    """A recorded session: each step a bash call and its output, with ids as replay gives them."""
    messages = [Message(role="system", content="sys", id="m0")]
    for command, output in steps:
        call = ToolCall(f"call_{len(messages)}", "bash", json.dumps({"command": command}))
        messages.append(Message(role="assistant", tool_calls=(call,), id=f"m{len(messages)}"))
        result = Message("tool", output, tool_call_id=call.id, name="bash")
        result.id = f"m{len(messages)}"
        messages.append(result)
    return adapt_results(messages)


def test_views_are_whole_commands_that_only_show_one_file() -> None:
    for command in (VIEW, "cat src/a.py", 'sed -n "5,9p" src/a.py', "head -n 40 src/a.py"):
        assert viewed_path(bash(command)) == "src/a.py", command
    for command in (
        "cat src/a.py > b.py",
        "sed -i 's/x/y/' src/a.py",
        "cat src/a.py | grep x",
        "cat src/a.py && rm src/a.py",
        "python src/a.py",
    ):
        assert viewed_path(bash(command)) is None, command


def test_a_re_read_is_a_note_unless_the_file_may_have_changed_or_it_left_the_context() -> None:
    history = session((VIEW, OUTPUT), ("cat src/a.py", "other"), (VIEW, OUTPUT))
    *live, again = history
    note = note_for(live, again)
    assert note is not None and note.id == again.id
    assert note.content == unchanged_note("src/a.py", EarlierRead("m2", "call_1"))
    assert ResultFacts.of_message(note.meta) == ResultFacts(
        exit_code=0, files_read=("src/a.py",), unchanged_of="m2"
    )

    edited = session((VIEW, OUTPUT), ("sed -i 's/line/LINE/' src/a.py", ""), (VIEW, OUTPUT))
    assert note_for(edited[:-1], edited[-1]) is None  # a command since names the file
    changed = session((VIEW, OUTPUT), (VIEW, OUTPUT.replace("line 20", "line twenty")))
    assert note_for(changed[:-1], changed[-1]) is None  # another output
    folded = [live[0], *live[3:]]  # the first result was folded away
    assert note_for(folded, again) is None


async def test_the_recorded_sessions_get_notes_under_pleats_strategy_only(
    recorded_sessions_file: Path, tmp_path: Path
) -> None:
    (recorded,) = [
        s for s in read_sessions(recorded_sessions_file) if s.name == "matplotlib__matplotlib-22871"
    ]
    policy = CompactionPolicy(context_window=16_000)
    results = {
        strategy: await run_strategy(
            strategy, recorded, policy=policy, window=16_000, archive_dir=tmp_path / strategy
        )
        for strategy in ("insert", "none")
    }
    assert results["insert"].reread_notes == 1 and results["insert"].reread_tokens_saved > 200
    assert results["none"].reread_notes == 0
