"""The TUI catches the archive index up in a background process once warm: the first `/resume`
picker or project search finds every earlier session indexed, without building anything."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sessions.archive_index import index_path
from sessions.messages import Message
from sessions.store import Session
from tests.support.scripted_server import ScriptedServer
from tests.support.tui_support import make_app, wait_for

pytestmark = pytest.mark.slow  # the whole TUI, and litellm's import


def indexed() -> set[str]:
    try:
        with sqlite3.connect(f"file:{index_path()}?mode=ro", uri=True) as conn:
            return {row[0] for row in conn.execute("SELECT id FROM sessions")}
    except sqlite3.Error:  # not made yet, or being made
        return set()


async def test_earlier_sessions_are_indexed_while_the_user_types(
    server: ScriptedServer, workspace: Path
) -> None:
    earlier = []
    for number in range(3):
        session = Session.create(workspace, model="m")
        session.message(Message("user", f"request {number}", id="m1"))
        session.close()
        earlier.append(session.id)
    app = make_app(server, workspace)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.warm, "the warm-up")
        await wait_for(pilot, lambda: indexed() >= set(earlier), "the background index")
