"""Custom slash commands in the TUI: listed in /help, the / list and the palette with their
description; run, the conversation shows what was typed and the server receives the expansion."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown

from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import (
    command,
    exchange,
    make_app,
    model,
    palette_first,
    started,
    wait_for,
    work_finished,
)
from tui.widgets.command_expansion import CommandExpansion
from tui.widgets.completion_list import CompletionList
from tui.widgets.notice import Notice
from tui.widgets.prompt_input import PromptInput
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set.
pytestmark = pytest.mark.slow

REVISE = """\
---
description: Revise a file for bugs
argument-hint: [file]
---
Revise $ARGUMENTS for bugs; start with $1.
"""


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ~/.claude of the machine's user is read."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def notices(app, kind: str | None = None) -> list[str]:
    return [n.text for n in app.query(Notice) if kind is None or n.kind == kind]


async def test_a_custom_command_is_listed_and_runs_as_typed_with_its_expansion_sent(
    server: ScriptedServer, workspace: Path
) -> None:
    write(workspace / ".pleat" / "commands" / "revise.md", REVISE)
    server.fallback = model([Text("revised")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await command(pilot, app, "/help")
        await wait_for(pilot, lambda: app.query(".help"), "the help")
        helped = app.query_one(".help", Markdown).source
        assert "**Custom commands**" in helped
        assert "- `/revise` \\[file\\]: Revise a file for bugs (project, " in helped

        completions = app.query_one(CompletionList)
        await pilot.press("slash", "r", "e")
        await wait_for(pilot, lambda: completions.showing, "the / list")
        found = {s.value: s.label for s in completions.completion.suggestions}
        assert "/revise" in found and "/resume" in found
        assert found["/revise"] == "/revise [file]     Revise a file for bugs (project)"

        await pilot.press("v", "i", "s", "e", "space", *"src/app.py", "enter")
        await wait_for(pilot, lambda: app.turn is not None, "the turn")
        await wait_for(pilot, lambda: work_finished(app), "the reply")
        users = list(app.query(UserMessage))
        assert [u.text for u in users] == ["/revise src/app.py"]
        expansion = app.query_one(CommandExpansion)
        assert expansion.collapsed
        assert str(expansion.title).startswith("expanded from .pleat/commands/revise.md · ")
        assert expansion.entry.text == "Revise src/app.py for bugs; start with src/app.py."
    assert server.requests[-1].messages[-1]["content"] == (
        "Revise src/app.py for bugs; start with src/app.py."
    )


async def test_an_edit_takes_effect_without_a_restart_and_resume_shows_what_was_typed(
    server: ScriptedServer, workspace: Path
) -> None:
    revise = write(workspace / ".pleat" / "commands" / "revise.md", "First: $ARGUMENTS")
    write(workspace / ".pleat" / "commands" / "bad name.md", "skipped")
    server.fallback = model([Text("one"), Text("two")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await wait_for(pilot, lambda: notices(app), "the note of the skipped file")
        assert notices(app) == [
            "custom commands: '.pleat/commands/bad name.md': a command name takes letters, "
            'digits, "-", "_" and "." (at most 64); skipped'
        ]
        await exchange(pilot, app, "/revise a")
        revise.write_text("Second, edited: $ARGUMENTS")
        await exchange(pilot, app, "/revise b")
        await command(pilot, app, "/nothing here")
        await wait_for(pilot, lambda: notices(app, "error"), "the unknown command")
        assert notices(app, "error") == ["unknown command /nothing (see /help)"]
        await command(pilot, app, "/undo")  # the line typed comes back, not its expansion
        prompt = app.query_one(PromptInput)
        await wait_for(pilot, lambda: prompt.value == "/revise b", "the request back")
        session = app.session
        assert session is not None
        session_id = session.id
    sent = [r.messages[-1]["content"] for r in server.requests]
    assert sent[-1] == "Second, edited: b" and "First: a" in [
        m["content"] for m in server.requests[-1].messages
    ]
    resumed = make_app(server, workspace, resume=session_id)
    async with resumed.run_test() as pilot:
        await started(pilot, resumed)
        assert [u.text for u in resumed.query(UserMessage)] == ["/revise a"]
        assert [e.entry.text for e in resumed.query(CommandExpansion)] == ["First: a"]


async def test_the_palette_offers_custom_commands(server: ScriptedServer, workspace: Path) -> None:
    write(workspace / ".claude" / "commands" / "tidy.md", "Tidy the imports.")
    write(workspace / ".pleat" / "commands" / "revise.md", REVISE)
    server.fallback = model([Text("tidied")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        await pilot.press("ctrl+p")
        await pilot.press(*"/tidy")
        await wait_for(pilot, lambda: palette_first(app) == "/tidy", "the palette's match")
        await pilot.press("enter")  # no arguments: it runs at once
        await wait_for(pilot, lambda: work_finished(app), "the turn")
        assert server.requests[-1].messages[-1]["content"] == "Tidy the imports."
        await pilot.press("ctrl+p")
        await pilot.press(*"/revise")
        await wait_for(pilot, lambda: palette_first(app) == "/revise", "the palette's match")
        await pilot.press("enter")  # it takes arguments: into the prompt, to complete
        await wait_for(pilot, lambda: app.query_one(PromptInput).value == "/revise ", "prompt")
