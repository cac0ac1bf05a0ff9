"""How a reply's calls are cut into runs: concurrent neighbours together, the rest one by one."""

from __future__ import annotations

from agent.turn.reply_calls import runs
from sessions.messages import ToolCall


def test_neighbouring_concurrent_calls_share_a_run_and_the_order_is_kept() -> None:
    names = ["read_file", "task", "task", "edit_file", "run_command", "task", "read_file", "task"]
    calls = [ToolCall(f"c{n}", name, "{}") for n, name in enumerate(names)]
    cut = runs(calls, lambda call: call.name == "task")
    assert [[c.id for c in run] for run in cut] == [
        ["c0"],
        ["c1", "c2"],
        ["c3"],
        ["c4"],
        ["c5"],
        ["c6"],
        ["c7"],
    ]


def test_without_concurrent_calls_every_call_runs_alone() -> None:
    calls = [ToolCall(f"c{n}", "edit_file", "{}") for n in range(3)]
    assert runs(calls, lambda call: False) == [[c] for c in calls]
