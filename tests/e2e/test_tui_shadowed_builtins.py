"""A command file of a built-in's name in the TUI: /help, the / list and the palette say which is
which; `/review` runs the project's review.md, `/pleat:review` the built-in (shown as typed);
`/help` stays pleat's whatever file is called so."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Markdown

from agent.commands.builtin_prompts import REVIEW_PROMPT
from tests.support.git_support import git_repo
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import (
    command,
    exchange,
    make_app,
    model,
    palette_first,
    started,
    wait_for,
)
from tui.widgets.completion_list import CompletionList
from tui.widgets.notice import Notice
from tui.widgets.user_message import UserMessage

# Slow (the whole TUI under Textual's pilot): left out of the fast set.
pytestmark = pytest.mark.slow

REVIEW_MD = """\
---
description: Our team's review checklist
---
Review $ARGUMENTS against CHECKLIST.md.
"""


@pytest.fixture(autouse=True)
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ~/.claude of the machine's user is read."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "home" / ".claude"))


def last_user(server: ScriptedServer) -> str:
    return str(server.requests[-1].messages[-1]["content"])


async def test_help_the_list_and_the_palette_show_both_and_each_spelling_runs_its_own(
    server: ScriptedServer, workspace: Path
) -> None:
    git_repo(workspace, {"app.py": b"x = 1\n"})
    (workspace / "app.py").write_text("x = 2\n")
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(REVIEW_MD)
    (commands / "help.md").write_text("never used")
    server.fallback = model([Text("checked"), Text("one finding")])
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await started(pilot, app)
        notes = lambda: [n.text for n in app.query(Notice)]  # noqa: E731
        await wait_for(pilot, lambda: len(notes()) >= 2, "the notes on the files")
        assert (
            "custom commands: /review runs the project command '.claude/commands/review.md'; "
            "pleat's built-in is /pleat:review"
        ) in notes()
        assert any("/help always runs pleat's built-in" in n for n in notes())

        await command(pilot, app, "/help")  # pleat's, whatever help.md says
        await wait_for(pilot, lambda: app.query(".help"), "the help")
        helped = app.query_one(".help", Markdown).source
        assert (
            "- `/pleat:review [focus]`: ask the model to review the uncommitted changes "
            "(git diff), reading only (\\/review runs the project command "
            "\\.claude\\/commands\\/review\\.md)"
        ) in helped
        assert (
            "- `/review`: Our team\\'s review checklist (project, "
            "\\.claude\\/commands\\/review\\.md; the built\\-in is \\/pleat\\:review)"
        ) in helped

        completions = app.query_one(CompletionList)
        await pilot.press("slash", "r", "e", "v")
        await wait_for(pilot, lambda: completions.showing, "the / list")
        found = {s.value: s.label for s in completions.completion.suggestions}
        assert found["/review"].endswith(
            "(project command .claude/commands/review.md; the built-in is /pleat:review)"
        )
        assert found["/pleat:review"].endswith(
            "(/review runs the project command .claude/commands/review.md)"
        )
        await pilot.press("escape")
        app.prompt.value = ""

        await pilot.press("ctrl+p")
        await pilot.press(*"/pleat:review")
        await wait_for(pilot, lambda: palette_first(app) == "/pleat:review", "the palette")
        await pilot.press("escape")

        await exchange(pilot, app, "/review the parser")
        assert last_user(server) == "Review the parser against CHECKLIST.md."
        await exchange(pilot, app, "/pleat:review")
        assert last_user(server).startswith(REVIEW_PROMPT) and "+x = 2" in last_user(server)
        typed = [u.text for u in app.query(UserMessage)]
        assert typed == ["/review the parser", "/pleat:review"]
