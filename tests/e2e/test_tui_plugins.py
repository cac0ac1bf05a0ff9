"""Plugins in the TUI: a plugin's SessionStart hook is shown in full and runs once approved
(then remembered), and /plugin lists the installed plugins and disables one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.plugins.install import add_marketplace, install
from agent.plugins.state import read_state
from tests.support.plugin_market import MARKET, make_market
from tests.support.scripted_server import ScriptedServer, Text
from tests.support.tui_support import asked, command, exchange, make_app, started, wait_for
from tui.screens.project_approval import PluginApprovalScreen
from tui.widgets.notice import Notice

# Slow (the whole TUI under Textual's pilot): left out of the fast set.
pytestmark = pytest.mark.slow

HOOK_CONTEXT = "House rules from the context-hook plugin: explain each change in one line."
KEY = f"context-hook@{MARKET}"


def notices(app: object) -> list[str]:
    return [str(n.entry.text) for n in app.query(Notice)]  # type: ignore[attr-defined]


async def test_a_plugins_hook_is_asked_about_then_runs_and_plugin_disables_it(
    server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    add_marketplace(str(make_market(tmp_path / "market")), tmp_path)
    install(KEY)

    async def session(answer: str | None) -> str:
        server.push(Text("hi"))
        app = make_app(server, workspace)
        async with app.run_test() as pilot:
            await started(pilot, app)
            if answer is not None:
                await asked(pilot, app, PluginApprovalScreen, "the plugin question")
                items = [str(s.render()) for s in app.screen.query(".project-approval-item")]
                assert items == [
                    "SessionStart: ${CLAUDE_PLUGIN_ROOT}/hooks-handlers/session-start.sh"
                ]
                await pilot.press(answer)
            await wait_for(pilot, lambda: not isinstance(app.screen, PluginApprovalScreen), "ok")
            await exchange(pilot, app, "hello")
            if answer is None:
                await command(pilot, app, "/plugin")
                await wait_for(pilot, lambda: any(KEY in n for n in notices(app)), "/plugin")
                await command(pilot, app, f"/plugin disable {KEY}")
                await wait_for(pilot, lambda: any("disabled" in n for n in notices(app)), "off")
        return json.dumps(server.requests[-1].body)

    assert HOOK_CONTEXT not in await session("n")
    assert HOOK_CONTEXT in await session("y")
    assert HOOK_CONTEXT in await session(None)  # remembered: no question
    assert read_state().enabled[KEY] is False
