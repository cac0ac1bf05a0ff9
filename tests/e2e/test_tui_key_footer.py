"""The key bar rebuilds its keys as the work comes and goes, and keeps none of the old ones
alive (Textual's Footer kept every rebuild's keys through their watchers: textual#6666)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets._footer import FooterKey

from tests.support.scripted_server import ScriptedServer
from tests.support.tui_support import exchange, make_app, started
from tui.widgets.key_footer import WATCHERS_ATTRIBUTE, KeyFooter

# Slow (the whole TUI under Textual's pilot): left out of the fast set, `pytest -m 'not slow'`.
pytestmark = pytest.mark.slow

# Turns sent: each shows Esc in the footer and takes it away again, two rebuilds.
TURNS = 3


async def test_turns_leave_no_old_keys_watching_the_footer(
    server: ScriptedServer, workspace: Path
) -> None:
    app = make_app(server, workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await started(pilot, app)
        footer = app.query_one(KeyFooter)
        first_keys = list(footer.query(FooterKey))
        for n in range(TURNS):
            await exchange(pilot, app, f"question {n}")
            await pilot.pause()  # the footer rebuilds after the next refresh
        await pilot.pause()
        keys = list(footer.query(FooterKey))
        assert first_keys and keys
        assert not any(key.is_attached for key in first_keys)  # the keys were rebuilt
        watchers = getattr(footer, WATCHERS_ATTRIBUTE)["compact"]
        assert [watcher for watcher, _ in watchers if not watcher.is_attached] == []
        assert len(watchers) <= len(keys)
