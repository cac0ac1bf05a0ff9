"""Memory in the TUI: a `#` prompt asks, then adds its note to AGENTS.md and tells the model with
the next prompt (the system prompt unchanged); /memory lists the files and hands one to a real
editor, the auto memory's file among them, with what a new session loads of it; the chunk
browser searches every session of the workspace and no other."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Input, OptionList, Static

from sessions.memory_store import WorkspaceMemory
from sessions.messages import Message
from sessions.store import Session
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import asked, exchange, make_app, started, wait_for
from tui.screens.chunks import ChunkBrowserScreen
from tui.screens.memory import MemoryScreen, NoteScreen, run_editor
from tui.screens.project_search import ProjectSearchScreen
from tui.widgets.prompt_input import PromptInput

pytestmark = pytest.mark.slow

# An editor that adds a line to the file it is given, as a user would, and exits.
APPENDING_EDITOR = """sh -c 'printf "Say why.\\n" >> "$1"' editor"""


async def test_a_hash_note_is_asked_added_and_told_with_the_next_prompt(
    server: ScriptedServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", APPENDING_EDITOR)
    (workspace / "AGENTS.md").write_text("Use tabs.")  # no newline at its end
    app = make_app(server, workspace, auto_memory=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        app.query_one(PromptInput).value = "# never edit vendor/"
        await pilot.press("enter")
        await asked(pilot, app, NoteScreen, "the note's question")
        await pilot.press("y")
        agents = workspace / "AGENTS.md"
        await wait_for(pilot, lambda: agents.read_text().endswith("\n"), "the note written")
        assert agents.read_text() == "Use tabs.\n- never edit vendor/\n"

        app.query_one(PromptInput).value = "# a heading, sent by mistake"
        await pilot.press("enter")
        await asked(pilot, app, NoteScreen, "the second question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.query_one(PromptInput).value != "", "the text back")
        assert app.query_one(PromptInput).value == "# a heading, sent by mistake"
        app.query_one(PromptInput).value = ""

        server.push(Text("ok"))
        await exchange(pilot, app, "hello")
        sent = server.requests[-1].messages
        assert "never edit vendor" not in sent[0]["content"]  # the cached system prompt holds
        assert [m["role"] for m in sent] == ["system", "user"]  # the note joins the prompt
        assert sent[1]["content"].startswith("hello\n\n[pleat: the user added to AGENTS.md")
        assert sent[1]["content"].endswith("- never edit vendor/")
        assert agents.read_text() == "Use tabs.\n- never edit vendor/\n"

        WorkspaceMemory.of(workspace).change(lambda text: "- answer in French\n")
        await pilot.press(*"/memory", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MemoryScreen), "/memory")
        rows = app.screen.query_one(OptionList)
        assert [str(rows.get_option_at_index(i).prompt).split()[0] for i in range(3)] == [
            "user",
            "project",
            "auto",  # the auto memory's file, and what a new session loads of it
        ]
        loaded = app.screen.query_one("#memory-auto Static", Static)
        assert str(loaded.render()) == "- answer in French"
        rows.highlighted = 1
        await pilot.press("enter")  # the test's terminal cannot be handed over: nothing changes
        status = app.screen.query_one("#memory-status", Static)
        await wait_for(pilot, lambda: "cannot be handed" in str(status.render()), "the refusal")
        assert agents.read_text() == "Use tabs.\n- never edit vendor/\n"


def test_the_editor_edits_the_file_in_place_and_a_failing_one_changes_nothing(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = workspace / "AGENTS.md"
    agents.write_text("Use tabs.\n")
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("VISUAL", APPENDING_EDITOR)
    assert run_editor(contextlib.nullcontext, agents) == (
        "edited AGENTS.md: new sessions read it; this one keeps what it was given"
    )
    assert agents.read_text() == "Use tabs.\nSay why.\n"
    monkeypatch.setenv("VISUAL", "sh -c 'exit 3'")
    assert run_editor(contextlib.nullcontext, agents) == "the editor exited with status 3"
    monkeypatch.delenv("VISUAL")
    assert "set $VISUAL or $EDITOR" in run_editor(contextlib.nullcontext, agents)
    assert agents.read_text() == "Use tabs.\nSay why.\n"


class Browser(App[None]):
    """Just the chunk browser, over a session's archive."""

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def on_mount(self) -> None:
        self.push_screen(ChunkBrowserScreen(self.session.archive))


async def test_the_chunk_browser_searches_every_session_of_the_workspace(tmp_path: Path) -> None:
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir(), elsewhere.mkdir()
    ids = []
    for workspace, said in ((here, "the walrus plan"), (elsewhere, "their walrus plan")):
        session = Session.create(workspace, model="m")
        session.message(Message("user", said, id="m2"))
        session.close()
        ids.append(session.id)
    current = Session.create(here, model="m")
    app = Browser(current)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChunkBrowserScreen), "the browser")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, ProjectSearchScreen), "every session")
        screen = app.screen
        assert isinstance(screen, ProjectSearchScreen)
        screen.query_one(Input).value = "walrus"
        await wait_for(pilot, lambda: len(screen.hits) == 1, "the hit")
        row = str(screen.query_one(OptionList).get_option_at_index(0).prompt)
        assert row.startswith(f"{ids[0]} · ") and "»walrus«" in row and ids[1] not in row
        await wait_for(pilot, lambda: "the walrus plan" in screen.viewer.source, "its message")
    current.close()
