"""The /chunks browser on a real archive: its search follows the shared rules and opens at hits."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Input, Label

from sessions.archive import ChunkArchive
from sessions.archive_query import MAX_QUERY_CHARS
from sessions.messages import Message
from tests.support.tui_support import wait_for
from tui.screens.chunks import ChunkBrowserScreen

pytestmark = pytest.mark.slow

# A tool output of several browser pages whose one match is near its end.
LONG_OUTPUT = (
    "".join(f"line {n} of a long log\n" for n in range(6_000)) + "the [z]ebra at the end\n"
)


class Host(App[None]):
    """Just the browser, over the given archive."""

    def __init__(self, archive: ChunkArchive) -> None:
        super().__init__()
        self.archive = archive

    def on_mount(self) -> None:
        self.push_screen(ChunkBrowserScreen(self.archive))


def make_archive(tmp_path: Path) -> ChunkArchive:
    archive = ChunkArchive(tmp_path / "chunks", "s1")
    archive.write_chunk([Message("user", "about the session", id="m1")], topics="a", tokens=1)
    archive.write_chunk(
        [
            Message("user", "show the log", id="m2"),
            Message("tool", LONG_OUTPUT, tool_call_id="c1", name="read_file", id="m3"),
        ],
        topics="b",
        tokens=1,
    )
    return archive


async def test_search_opens_the_chunk_at_its_hit(tmp_path: Path) -> None:
    app = Host(make_archive(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChunkBrowserScreen), "the browser")
        browser = app.screen
        assert isinstance(browser, ChunkBrowserScreen)
        await wait_for(pilot, lambda: len(browser.pages) > 2, "the newest chunk, in pages")
        assert browser.current == 2 and browser.page == 0
        search = browser.query_one("#chunk-search", Input)
        search.value = r"\[z\]ebra"
        await wait_for(pilot, lambda: [c.number for c in browser.shown] == [2], "the search")
        await wait_for(pilot, lambda: browser.page > 0, "the page of the hit")
        assert "the [z]ebra at the end" in browser.pages[browser.page]
        title = str(browser.query_one("#chunks-title", Label).render())
        assert title.endswith(r"· 1 of 2 match /\[z\]ebra/ (regex, ignoring case)")
        # `session` is in every chunk's front matter, but only chunk 1's text says it.
        search.value = "session"
        await wait_for(pilot, lambda: [c.number for c in browser.shown] == [1], "chunk 1 only")
        search.value = "x" * (MAX_QUERY_CHARS + 1)
        await wait_for(pilot, lambda: "more than" in browser.viewer.source, "the refusal")
        assert browser.shown == []
        search.value = ""
        await wait_for(pilot, lambda: len(browser.shown) == 2, "every chunk again")
        assert str(browser.query_one("#chunks-title", Label).render()) == "Chunks of session s1"
