"""Background commands belong to their session (Textual's pilot, a real agent and processes):
/shells lists the session's, and a switch to another session (/new) kills them."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.support.mcp_support import alive, kill_if_alive, started_pids, wait_gone
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tests.support.tui_support import command, exchange, make_app, started, wait_for
from tui.widgets.notice import Notice

pytestmark = pytest.mark.slow

# A sleep with a number of its own (the test finds its processes by it: in the sandbox's PID
# namespace `$$` names another pid), and a file once it has started.
TOKEN = f"30.{uuid.uuid4().int % 10**9:09d}"
SLEEPER = f"sleep {TOKEN} & echo started > sleep.pid; wait"


def notices(app: object) -> list[str]:
    return [str(notice.render()) for notice in app.query(Notice)]  # type: ignore[attr-defined]


async def test_shells_lists_them_and_a_new_session_kills_them(
    server: ScriptedServer, workspace: Path
) -> None:
    server.push(
        ToolCalls([("run_command", {"command": SLEEPER, "background": True})]), Text("running")
    )
    app = make_app(server, workspace, approve_everything=True)
    pids: list[int] = []
    async with app.run_test() as pilot:
        try:
            await started(pilot, app)
            await exchange(pilot, app, "start the sleeper")
            pids = started_pids(workspace / "sleep.pid", TOKEN)
            assert all(alive(pid) for pid in pids)
            await command(pilot, app, "/shells")
            await wait_for(pilot, lambda: any("bg-1" in n for n in notices(app)), "/shells")
            (listing,) = [n for n in notices(app) if "bg-1" in n]
            assert "running for" in listing and "sleep 30" in listing
            assert "output: " in listing and "running-" in listing
            first = app.session.id if app.session else ""
            await command(pilot, app, "/new")
            await wait_for(
                pilot, lambda: app.session is not None and app.session.id != first, "/new"
            )
            assert all(wait_gone(pid) for pid in pids)  # they were the session left's
            await command(pilot, app, "/shells")
            await wait_for(
                pilot,
                lambda: any("No background commands" in n for n in notices(app)),
                "/shells in the new session",
            )
        finally:
            for pid in pids:
                kill_if_alive(pid)
