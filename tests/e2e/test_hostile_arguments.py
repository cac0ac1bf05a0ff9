"""A session whose model sends crafted tool arguments runs, resumes and folds without a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sessions.messages import Message, ToolCall, tool_result
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.hostile_inputs import HOSTILE_ARGUMENTS
from tests.support.pleat_process import run_pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import make_app, started
from tui.widgets.tool_call import ToolCallBlock

# Slow (runs pleat headless three times, folding): left out of the fast set.
pytestmark = pytest.mark.slow

# How the scripted model recognizes pleat's compression instruction.
INSTRUCTION_MARK = "[pleat: context compaction"


# The arguments sent over the wire: all but the 5 MiB one, which the scripted server would
# stream in 750,000 pieces (its limit is checked by tests/unit/sessions/test_model_json.py).
SENT = {name: case for name, case in HOSTILE_ARGUMENTS.items() if name != "too long"}


class CraftingModel:
    """Sends each hostile argument string once, raw, then answers; folds when asked."""

    def __init__(self) -> None:
        self.pending = [text for text, _ in SENT.values()]
        self.results: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Text | ToolCalls:
        last = body["messages"][-1]
        if INSTRUCTION_MARK in str(last.get("content")):
            return Text(
                "<topics>crafted arguments</topics><continues_previous>false</continues_previous>"
                "<summary>The model sent crafted arguments; each was refused.</summary>"
            )
        if last["role"] == "tool":
            self.results.append(str(last["content"]))
        if self.pending:
            raw = self.pending.pop(0)
            name = "write_file" if "content" in raw else "read_file"
            return ToolCalls([(name, raw)])
        return Text("all refused")


def test_crafted_arguments_are_refused_resumed_and_folded(workspace: Path) -> None:
    (workspace / "a.txt").write_text("hello\n")
    model = CraftingModel()
    with ScriptedServer(api_key=TEST_API_KEY, models={TEST_MODEL}, fallback=model) as server:
        first = run_pleat(workspace, server, "-p", "read a.txt")
        folded = run_pleat(workspace, server, "--continue", "-p", "/compact")
        again = run_pleat(workspace, server, "--continue", "-p", "and now?")
    for done in (first, folded, again):
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
    assert "all refused" in first.stdout
    assert len(model.results) == len(SENT)
    for result, (_, words) in zip(model.results, SENT.values(), strict=True):
        assert words in result, result[:300]
    assert not list(workspace.glob("*.txt"))[1:]  # nothing but a.txt was written


async def test_the_tui_resumes_a_session_holding_crafted_calls(
    server: ScriptedServer, workspace: Path
) -> None:
    session = Session.create(workspace, model=TEST_MODEL)
    calls = tuple(
        ToolCall(f"call{n}", "read_file", text) for n, (text, _) in enumerate(SENT.values())
    )
    session.message(Message("system", "you are pleat", id="m0"))
    session.message(Message("user", "read it", id="m1"))
    session.message(Message("assistant", None, tool_calls=calls, id="m2"))
    for n, call in enumerate(calls):
        result = tool_result(call, "refused", is_error=True)
        result.id = f"m{n + 3}"
        session.message(result)
    session.close()
    app = make_app(server, workspace, resume=session.id)
    async with app.run_test() as pilot:
        await started(pilot, app)
        blocks = app.query(ToolCallBlock)
        assert len(blocks) == len(calls)
        assert all(block.title.startswith("✗ read_file") for block in blocks)
