"""The built-ins' bodies run without any UI, on a real session in a temporary workspace: what
they answer (CommandOutput, Notice) and how they end (the context's outcome)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.assemble import build_agent
from agent.commands.builtin import BY_NAME
from agent.config import Config
from agent.events import CommandOutput, Notice, SessionEvent
from agent.permissions.policy import approve_all
from agent.slash.context import CommandContext
from agent.slash.dispatch import NO_AGENT, run_builtin
from agent.slash.no_screens import NoScreens
from sessions.store import Session


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[CommandContext]:
    workspace = tmp_path / "work"
    workspace.mkdir()
    session = Session.create(workspace, model="openai/m")
    try:
        agent = build_agent(Config(model="openai/m"), workspace, approve_all, session=session)
        yield CommandContext(workspace, NoScreens(), agent, session)
    finally:
        session.close()


async def run(ctx: CommandContext, line: str) -> list[SessionEvent]:
    name, _, arg = line.removeprefix("/").partition(" ")
    return [event async for event in run_builtin(ctx, BY_NAME[name], arg)]


def said(events: list[SessionEvent]) -> list[tuple[str, bool]]:
    return [(e.text, e.failed) for e in events if isinstance(e, CommandOutput)]


async def test_goal_is_set_shown_and_cleared(ctx: CommandContext) -> None:
    assert said(await run(ctx, "/goal"))[0][0].startswith("This session has no goal")
    set_line = said(await run(ctx, "/goal ship the parser"))
    assert set_line == [
        (
            "goal set (the model is told with your next prompt; every fold keeps it): "
            "ship the parser",
            False,
        )
    ]
    assert ctx.agent is not None and ctx.agent.goal == "ship the parser"
    assert said(await run(ctx, "/goal")) == [("goal: ship the parser", False)]
    assert said(await run(ctx, "/goal clear"))[0][0].startswith("goal cleared")
    assert ctx.agent.goal is None and ctx.outcome == "done"


async def test_export_writes_the_file_it_names(ctx: CommandContext) -> None:
    events = await run(ctx, "/export notes.md")
    assert ctx.outcome == "done"
    ((text, failed),) = said(events)
    assert not failed and "notes.md" in text
    assert (ctx.workspace / "notes.md").is_file()


async def test_diff_of_an_untouched_session_says_nothing_changed(ctx: CommandContext) -> None:
    ((text, failed),) = said(await run(ctx, "/diff"))
    assert not failed and text.strip() and ctx.outcome == "done"
    assert "---" not in text  # no file in it


async def test_undo_refuses_an_argument_and_a_session_without_requests(
    ctx: CommandContext,
) -> None:
    ((text, failed),) = said(await run(ctx, "/undo 3"))
    assert failed and text.startswith("/undo takes no argument") and ctx.outcome == "refused"
    ctx.outcome = "done"
    ((text, failed),) = said(await run(ctx, "/undo"))
    assert failed and ctx.outcome == "refused"


async def test_rewind_without_a_screen_lists_the_turns(ctx: CommandContext) -> None:
    assert said(await run(ctx, "/rewind")) == [("no turns to rewind to yet", False)]
    ((text, failed),) = said(await run(ctx, "/rewind x y z"))
    assert failed and "is not a rewind" in text


async def test_a_screen_the_front_end_lacks_is_refused_in_one_line(ctx: CommandContext) -> None:
    ((text, failed),) = said(await run(ctx, "/chunks"))
    assert failed and text == "/chunks works in pleat's terminal UI only"
    ((text, failed),) = said(await run(ctx, "/memory # use tabs"))
    assert failed and "takes nothing headless" in text


async def test_no_agent_refuses_the_rows_that_need_one(tmp_path: Path) -> None:
    bare = CommandContext(tmp_path, NoScreens())
    assert said(await run(bare, "/diff")) == [(NO_AGENT, True)]
    events = await run(bare, "/skills")  # needs no session
    assert said(events) and not said(events)[0][1]
    assert not [e for e in events if isinstance(e, Notice) and e.level == "error"]


async def test_lsp_says_the_language_servers_of_the_session(ctx: CommandContext) -> None:
    assert said(await run(ctx, "/lsp")) == [
        ("Language servers are off ([lsp] enabled = false, or PLEAT_LSP=off).", False)
    ]  # this agent has none (the running servers' rows: tests/e2e/test_language_servers.py)
