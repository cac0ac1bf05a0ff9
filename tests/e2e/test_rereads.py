"""The real agent against the scripted server: reading an unchanged file a second time costs a
note naming the first result; after the file changes (an edit, or a command) it is read again;
no request rewrites what an earlier one sent (the provider's cache is intact)."""

from __future__ import annotations

import itertools
from pathlib import Path

from tests.support.compaction_agent import make_agent, run
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

SOURCE = "".join(f"def f{i}():\n    return {i}\n" for i in range(60))


def last_result(server: ScriptedServer, request: int) -> str:
    tool = [m for m in server.requests[request].messages if m["role"] == "tool"][-1]
    return str(tool["content"])


async def test_an_unchanged_re_read_is_a_note_and_a_changed_file_is_read_again(
    server: ScriptedServer, workspace: Path
) -> None:
    (workspace / "a.py").write_text(SOURCE)
    read = ("read_file", {"path": "a.py"})
    edit = ("edit_file", {"path": "a.py", "old_string": "return 7", "new_string": "return 70"})
    command = ("run_command", {"command": "sed -i 's/return 9$/return 90/' a.py"})
    server.push(
        *(ToolCalls([step]) for step in (read, read, edit, read, read, command, read)),
        Text("done"),
    )
    agent = make_agent(server, workspace)
    await run(agent, "Look at a.py twice, fix f7 and f9, and look again.")

    first = last_result(server, 1)
    assert first.startswith("     1\tdef f0():") and len(first) > 1000
    note = last_result(server, 2)
    results = [m for m in agent.history if m.role == "tool"]
    assert note == results[1].content and "\n" not in note
    assert f"since you read these lines in message {results[0].id}" in note
    after_edit = last_result(server, 4)
    assert "    return 70" in after_edit and after_edit.startswith("     1\tdef f0():")
    assert last_result(server, 5).startswith("[pleat: a.py is unchanged (same size and mod")
    assert f"message {results[3].id}" in last_result(server, 5)  # the newest read, not the first
    assert "    return 90" in last_result(server, 7)  # a command changed it: read again

    sent = [request.messages for request in server.requests]
    for before, after in itertools.pairwise(sent):
        assert after[: len(before)] == before  # each request extends the one before
