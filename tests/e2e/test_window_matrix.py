"""Never hit the wall: windows of 4k to 32k tokens against an oversized output of every tool.

The scripted server enforces the window (it refuses any request over it, as a provider does).
The scripted model calls the tool once, then follows the output's own note to its end (as a
model would: "the last lines: offset=N", the last page, the last offset; for a command, through
the full output kept on disk rather than the tail it was shown), and answers with the last line
it found. Every run must finish, no request may exceed the window, and the last line of the big
output must have reached the model through the tools.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.assemble import build_agent
from agent.compaction.policy import CompactionPolicy
from agent.config import Config
from agent.events import ErrorEvent, ToolCallFinished, TurnDone
from agent.permissions.policy import approve_all
from agent.turn.loop import Agent
from sessions.messages import Message
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.hints import last_page_call
from tests.support.invariants import assert_history_valid
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls

WINDOWS = (4_096, 8_192, 16_384, 32_768)
INSTRUCTION_MARK = "[pleat: context compaction"
SUMMARY = (
    "<topics>big output</topics><continues_previous>false</continues_previous>"
    "<summary>\n## Task\nFind the last line of the big output.\n</summary>"
)

# Slow (twenty end-to-end runs over big trees): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow
# Model calls one run may make: the first call, the jump to the end, a retry after a shrink.
MAX_TOOL_CALLS = 6

# The oversized outputs, each with the last line the model must reach.
FILE_LINES = 7_000  # "line 000001 of the big file: ..." * 7,000 = 300 KB
GREP_MATCHES = 10_000
GLOB_FILES = 20_000
COMMAND_ROWS = 100_000  # "row 1" .. "row 100000": about 1 MB
ARCHIVE_LINES = 7_000


def big_file_text() -> str:
    return "".join(
        f"line {n:06d} of the big file: some words to make it wide\n"
        for n in range(1, FILE_LINES + 1)
    )


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One workspace for every case: the 300 KB file, the grep tree, the 20,000-file tree."""
    root = tmp_path_factory.mktemp("matrix")
    (root / "big.txt").write_text(big_file_text())
    hits = root / "logs"
    hits.mkdir()
    per_file = GREP_MATCHES // 100
    for f in range(100):
        (hits / f"log-{f:03d}.txt").write_text(
            "".join(f"NEEDLE {f * per_file + n + 1:05d}\n" for n in range(per_file))
        )
    many = root / "many"
    for d in range(20):
        sub = many / f"d{d:02d}"
        sub.mkdir(parents=True)
        for n in range(GLOB_FILES // 20):
            (sub / f"f{d * 1000 + n:05d}.dat").touch()
    return root


@dataclasses.dataclass(frozen=True)
class Case:
    tool: str
    args: dict[str, Any]
    target: str  # the last line of the big output
    found_by: str  # the tool whose result must show it


CASES = {
    "read_file": Case(
        "read_file", {"path": "big.txt"}, f"line {FILE_LINES:06d} of the big file", "read_file"
    ),
    "grep": Case(
        "grep", {"pattern": "NEEDLE", "path": "logs"}, f"NEEDLE {GREP_MATCHES:05d}", "grep"
    ),
    "glob": Case(
        "glob", {"pattern": "many/**/*.dat"}, f"many/d19/f{GLOB_FILES - 1:05d}.dat", "glob"
    ),
    # The command's tail shows its last row at once; the model must find it again in the full
    # output kept on disk, by paging with read_archive as the cut note says.
    "run_command": Case(
        "run_command",
        {"command": f"seq -f 'row %g' 1 {COMMAND_ROWS}"},
        f"\trow {COMMAND_ROWS}",
        "read_archive",
    ),
    "read_archive": Case(
        "read_archive",
        {"action": "read", "chunk": 1},
        f"archived line {ARCHIVE_LINES}",
        "read_archive",
    ),
}


def is_compression(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]
    return last["role"] == "user" and INSTRUCTION_MARK in str(last["content"])


def last_tool_result(body: dict[str, Any]) -> tuple[str, str] | None:
    """(tool name, text) of the newest tool result, if the request ends with one."""
    last = body["messages"][-1]
    if last["role"] != "tool":
        return None
    return str(last.get("name")), str(last["content"])


def scripted_model(case: Case) -> Callable[..., Any]:
    """Call the tool, then follow its notes to the end; answer once the target is seen."""
    calls = {"n": 0}

    def reply(body: dict[str, Any]) -> Text | ToolCalls:
        if is_compression(body):
            return Text(SUMMARY)
        result = last_tool_result(body)
        if result is None:
            calls["n"] += 1
            return ToolCalls([(case.tool, case.args)])
        name, seen = result
        if case.target in seen and name == case.found_by:
            return Text(f"found: {case.target.strip()}")
        calls["n"] += 1
        if calls["n"] > MAX_TOOL_CALLS:
            return Text("gave up")
        follow = last_page_call(seen)
        if follow is None:
            return Text("no way on")
        return ToolCalls([follow])

    return reply


def make_agent(server: ScriptedServer, workspace: Path, window: int) -> tuple[Agent, Session]:
    config = Config(
        model=TEST_MODEL,
        api_base=server.base_url,
        api_key=TEST_API_KEY,
        max_retries=1,
        compaction=CompactionPolicy(context_window=window),
        # The 4k window holds the system prompt, the tool schemas and the request with no token
        # to spare: the auto memory's tool, which these outputs are not about, is left out.
        auto_memory=False,
    )
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, approve_all, session=session)
    agent.llm.settings = dataclasses.replace(agent.llm.settings, retry_base_delay=0.001)
    return agent, session


def seed_archive(session: Session) -> None:
    """A folded chunk holding one huge message (about 250 KB)."""
    body = "\n".join(
        f"archived line {n} with some words after it" for n in range(1, ARCHIVE_LINES + 1)
    )
    session.archive.write_chunk(
        [
            Message(role="user", content="show me the log", id="m0a"),
            Message(role="assistant", content=body, id="m0b"),
        ],
        topics="an old log",
        tokens=len(body) // 4,
    )


@pytest.mark.parametrize("window", WINDOWS, ids=[f"{w // 1024}k" for w in WINDOWS])
@pytest.mark.parametrize("name", list(CASES))
async def test_an_oversized_output_never_hits_the_wall(
    server: ScriptedServer, big_tree: Path, name: str, window: int
) -> None:
    case = CASES[name]
    server.context_window = window
    server.fallback = scripted_model(case)
    agent, session = make_agent(server, big_tree, window)
    try:
        if case.tool == "read_archive":
            seed_archive(session)
        events = [e async for e in agent.run_turn(f"find the last line of the {name} output")]
    finally:
        session.close()
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    done = events[-1]
    assert isinstance(done, TurnDone) and done.reason == "answer", (errors, done)
    assert done.text == f"found: {case.target.strip()}"
    # No request went over the window: the server would have refused it (and counts it here).
    sizes = [r.prompt_tokens for r in server.requests]
    assert max(sizes) <= window, sizes
    # Every tool result fit the budget, and the target came through the tool named.
    budget = agent.tool_context().budget
    results = [e for e in events if isinstance(e, ToolCallFinished)]
    assert all(budget.fits(e.text) for e in results)
    assert any(case.target in e.text for e in results if e.call.name == case.found_by)
    assert not [e for e in results if e.is_error], [e.text[:200] for e in results]
    assert_history_valid(agent.history)
    json.dumps([m.to_record() for m in agent.history])  # the journaled history is sound
