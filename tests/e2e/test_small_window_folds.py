"""Folds nobody waits for in a small window: in 12k, every fold (not only the first) is made
beside the turn. The real agent against the scripted server; each compression call is held until
the next ordinary request arrives, so a turn that waited for a fold would never send one: the
call would answer only at its hold's end, unreleased, and the test would see it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from agent.events import CompactionDone, CompactionStarted, TurnDone
from tests.support.compaction_agent import is_compression, make_agent, run
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

# A local model's window: a fold leaves room for a few reads before the next is due.
WINDOW = 12_000
# Reads in the turn: enough for four folds or more in this window, however the machine's load
# moves when each fold starts (a fold starts by measured growth rates: three in 40 reads on a
# busy machine, five or six in 60).
READS = 60
# Seconds a held compression call waits for a next request at most: the turn waited for the
# fold if it came to that (no wall-clock race: the test reads only the order of events).
HOLD_SECONDS = 30.0


class HeldFolds:
    """The model: reads file after file; each compression call is held until an ordinary
    request arrives, and says whether one did."""

    def __init__(self) -> None:
        self.reads = iter(range(READS))
        self.gates: list[threading.Event] = []
        self.released: list[bool] = []  # per compression call: a request let it go
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Text | ToolCalls:
        if is_compression(body):
            gate = threading.Event()
            with self.lock:
                self.gates.append(gate)
            self.released.append(gate.wait(HOLD_SECONDS))
            return Text(
                "<topics>reading files</topics><continues_previous>true</continues_previous>"
                "<summary>\n## Task\nRead every file.\n</summary>"
            )
        with self.lock:
            for gate in self.gates:
                gate.set()
            self.gates.clear()
        i = next(self.reads, None)
        if i is None:
            return Text("All files are read.")
        return ToolCalls([("read_file", {"path": f"f{i:02d}.txt"})])


@pytest.mark.slow
async def test_every_fold_in_a_small_window_is_made_while_the_turn_goes_on(
    server: ScriptedServer, workspace: Path
) -> None:
    for i in range(READS):
        lines = [f"file {i:02d} line {n:02d}: value {i * 7919 + n}" for n in range(25)]
        (workspace / f"f{i:02d}.txt").write_text("\n".join(lines) + "\n")
    server.context_window = WINDOW
    provider = HeldFolds()
    server.fallback = provider
    agent = make_agent(server, workspace, context_window=WINDOW)
    events = await run(agent, f"Read the files f00.txt to f{READS - 1}.txt, one at a time.")

    assert isinstance(events[-1], TurnDone) and events[-1].reason == "answer", events[-3:]
    folds = [n for n, e in enumerate(events) if isinstance(e, CompactionDone)]
    assert len(folds) >= 4
    starts = [n for n, e in enumerate(events) if isinstance(e, CompactionStarted)]
    assert all(events[n].background for n in starts)  # type: ignore[attr-defined]
    for fold in folds:  # each applied fold began in the background, before it
        assert any(n < fold for n in starts)
    assert provider.released and all(provider.released)  # no turn waited for a call
    assert max(r.prompt_tokens for r in server.requests) <= WINDOW
    assert_history_valid(agent.history)
