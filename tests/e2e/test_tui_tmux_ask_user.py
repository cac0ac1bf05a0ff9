"""ask_user and /skills in a real terminal (tmux), as a person uses them: the question shows its
options, a key picks one, typing gives an answer of one's own; /skills lists a skill copied from
anthropics/skills, whose body the model gets only from the skill call."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tmux_pleat import TmuxPleat, tmux_available

# Slow (pleat as a process in a terminal): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not tmux_available(), reason="tmux is not installed"),
]

VENDORED = Path(__file__).parent.parent / "data" / "skills" / "brand-guidelines"
QUESTION = {"question": "Which database shall I use?", "options": ["SQLite", "Postgres"]}
AGAIN = {"question": "Which one for the tests?", "options": ["The same", "In memory"]}


def tool_results(server: ScriptedServer, request: int) -> list[str]:
    return [m["content"] for m in server.requests[request].messages if m["role"] == "tool"]


def test_a_question_answered_by_key_and_by_typing(server: ScriptedServer, workspace: Path) -> None:
    shutil.copytree(VENDORED, workspace / ".claude" / "skills" / "brand-guidelines")
    server.push(
        ToolCalls([("ask_user", QUESTION)]),
        ToolCalls([("ask_user", AGAIN)]),
        ToolCalls([("skill", {"name": "brand-guidelines"})]),
        Text("All set."),
    )
    with TmuxPleat(workspace, server) as tui:
        tui.wait_for(lambda _: " · idle" in tui.status_line(), "pleat to start")
        tui.send("/skills")
        tui.wait_for(lambda s: "- brand-guidelines (project" in s, "the skills listed")
        tui.send("set up storage")
        tui.wait_for(lambda s: "Which database shall I use?" in s and "2. Postgres" in s, "ask")
        tui.answer("2", "2. Postgres")  # the option: on the question only
        tui.wait_for(lambda s: "Which one for the tests?" in s, "the second question")
        tui.answer("D", "Or type your answer")  # a letter starts the answer (again while it arms)
        tui.type("uckDB")
        tui.keys("Enter")
        tui.wait_for(lambda s: "All set." in s, "the end of the turn")
    assert tool_results(server, 1)[-1] == "The user chose option 2: Postgres"
    assert tool_results(server, 2)[-1] == "The user answered: DuckDB"
    assert "Applies Poppins font" not in str(server.requests[2].body)
    assert "Applies Poppins font" in tool_results(server, 3)[-1]
