"""/chunks: the session's archived chunks, a search box over them, and one chunk's Markdown;
opened from a fold marker, the summary that replaced that chunk beside it."""

from __future__ import annotations

import asyncio
import threading
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Markdown, OptionList
from textual.widgets.option_list import Option

from agent.slash.chunk_search import (
    ChunkHits,
    ChunkSearcher,
    body,
    chunk_label,
    hit_page,
    pages,
    read_chunk,
)
from agent.terminal_text import visible
from sessions.archive import ChunkArchive, ChunkInfo
from sessions.archive_query import QueryError, SearchCancelled, compile_query
from tui.screens.styles import SCREENS_CSS

# Shown when the session has folded nothing yet.
EMPTY = "Nothing has been folded in this session yet: chunks appear after a compaction."


class ChunkBrowserScreen(Screen[None]):
    """Lists the chunks (topics, message ids), filters them by a search, shows the highlighted
    one; `summary` (from a fold marker): the summary message that replaced chunk `select`,
    shown beside it while that chunk is the one read. Escape goes back to the conversation."""

    CSS_PATH = SCREENS_CSS  # tui/screens/screens.tcss

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("ctrl+f", "focus_search", "Search"),
        Binding("ctrl+n", "page(1)", "Next page"),
        Binding("ctrl+b", "page(-1)", "Previous page"),
        Binding("ctrl+o", "every_session", "Every session"),
    ]

    def __init__(
        self, archive: ChunkArchive, select: int | None = None, summary: str | None = None
    ) -> None:
        super().__init__()
        self.archive = archive
        self.select = select
        self.summary = summary if select is not None else None
        self.chunks: list[ChunkInfo] = []
        self.shown: list[ChunkInfo] = []  # the list's rows, after the search
        self.current: int | None = None  # the chunk in the viewer
        self.pages: list[str] = []  # the current chunk's Markdown, in pages
        self.page = 0
        self.searcher = ChunkSearcher(archive)
        self.hits: dict[int, ChunkHits] = {}  # the search's chunks, to open each at its hit
        self._texts: dict[int, tuple[float, str]] = {}  # number -> (mtime, text)

    def compose(self) -> ComposeResult:
        yield Label(self._title(), id="chunks-title")
        yield Input(placeholder="search: text or a regex (case ignored)", id="chunk-search")
        with Horizontal(id="chunks-body", classes="with-summary" if self.summary else ""):
            yield OptionList(id="chunk-list", markup=False)  # topics are the model's text
            with VerticalScroll(id="chunk-scroll"):
                yield Markdown(id="chunk-view")
            if self.summary is not None:
                with VerticalScroll(id="summary-scroll"):
                    title = f"The summary that replaced chunk {self.select}"
                    yield Label(title, id="summary-title", markup=False)
                    yield Markdown(visible(self.summary), id="summary-view")
        yield Footer()

    def _title(self, found: str = "") -> Content:
        """The title line; during a search, how many chunks match and how the query was read
        (plain content: a query's brackets are not markup)."""
        title = f"Chunks of session {self.archive.session_id}"
        return Content(visible(f"{title} · {found}" if found else title))

    @property
    def chunk_list(self) -> OptionList:
        return self.query_one("#chunk-list", OptionList)

    @property
    def viewer(self) -> Markdown:
        return self.query_one("#chunk-view", Markdown)

    def on_mount(self) -> None:
        self.chunk_list.focus()
        self.load()

    @work(group="chunks", exclusive=True, exit_on_error=False)
    async def load(self) -> None:
        self.chunks = await asyncio.to_thread(self.archive.chunks)
        if not self.chunks:
            await self._view(EMPTY)
            return
        self._fill(self.chunks, {})
        numbers = [c.number for c in self.shown]
        wanted = self.select if self.select in numbers else numbers[-1]
        self.chunk_list.highlighted = numbers.index(wanted)

    def _fill(self, chunks: list[ChunkInfo], hits: dict[int, int]) -> None:
        self.shown = chunks
        self.chunk_list.set_options(
            Option(chunk_label(c, hits.get(c.number)), id=str(c.number)) for c in chunks
        )

    async def _text(self, info: ChunkInfo) -> str:
        """A chunk's text, read in a thread and kept while the file is unchanged."""
        mtime = info.path.stat().st_mtime
        cached = self._texts.get(info.number)
        if cached is None or cached[0] != mtime:
            cached = (mtime, await asyncio.to_thread(read_chunk, info))
            self._texts[info.number] = cached
        return cached[1]

    @on(OptionList.OptionHighlighted, "#chunk-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.show_chunk(int(event.option.id))

    @work(group="view", exclusive=True, exit_on_error=False)
    async def show_chunk(self, number: int) -> None:
        info = next((c for c in self.chunks if c.number == number), None)
        if info is None or number == self.current:
            return
        self.current = number
        if self.summary is not None:  # beside its own chunk only
            self.query_one("#summary-scroll").display = number == self.select
        try:
            text = await self._text(info)
        except OSError as error:
            self.pages = []
            await self._view(f"**chunk {number} cannot be read:** {error}")
            return
        self.pages = pages(body(text))
        found = self.hits.get(number)
        await self._show_page(hit_page(self.pages, found.first) if found else 0)

    async def _show_page(self, page: int) -> None:
        self.page = page
        shown = self.pages[page]
        if len(self.pages) > 1:
            where = f"page {page + 1} of {len(self.pages)} (Ctrl+N next, Ctrl+B previous)"
            shown = f"_{where}_\n\n{shown}"
        await self._view(shown)
        self.query_one("#chunk-scroll").scroll_home(animate=False)

    async def _view(self, markdown: str) -> None:
        """Shows Markdown in the viewer. A view worker replaced by a newer one stops waiting, but
        the update itself runs to its end (one cut off while mounting its blocks can leave the
        widget stuck); the widget's own lock then applies the newer update after it."""
        await asyncio.shield(self.viewer.update(visible(markdown)))

    @work(group="view", exclusive=True, exit_on_error=False)
    async def show_note(self, text: str) -> None:
        """A note in place of a chunk; in the view group, so a chunk still opening is dropped
        instead of replacing the note."""
        self.current, self.pages = None, []
        await self._view(text)

    @work(group="view", exclusive=True, exit_on_error=False)
    async def action_page(self, step: int) -> None:
        page = self.page + step
        if self.pages and 0 <= page < len(self.pages):
            await self._show_page(page)

    @on(Input.Changed, "#chunk-search")
    def _query_changed(self, event: Input.Changed) -> None:
        self.search(event.value)

    @work(group="search", exclusive=True, exit_on_error=False)
    async def search(self, text: str) -> None:
        title = self.query_one("#chunks-title", Label)
        if not text.strip():
            self.hits = {}
            title.update(self._title())
            self._fill(self.chunks, {})
            return
        try:
            query = compile_query(text)
        except QueryError as error:
            self.hits = {}
            self._fill([], {})
            self.show_note(str(error))
            return
        stop = threading.Event()
        numbers = [info.number for info in self.chunks]
        try:
            found = await asyncio.to_thread(self.searcher.search, query, numbers, stop.is_set)
        except asyncio.CancelledError:
            stop.set()  # a newer query replaced this one: the thread gives up between messages
            raise
        except SearchCancelled:
            return
        self.hits = found
        self._fill(
            [c for c in self.chunks if c.number in found], {n: h.count for n, h in found.items()}
        )
        described = f"{len(found)} of {len(self.chunks)} match {query.described}"
        if self.searcher.stopped_early:
            described += f" (search stopped early: {self.searcher.stopped_early})"
        if self.searcher.notice:
            described += f" ({self.searcher.notice})"
        title.update(self._title(described))
        self.current = None  # open the chunks again at their first hit
        if self.shown:
            self.chunk_list.highlighted = 0
        else:
            self.show_note(f"No chunk matches `{text.strip()}`.")

    @on(Input.Submitted, "#chunk-search")
    def _search_submitted(self) -> None:
        self.chunk_list.focus()

    def action_focus_search(self) -> None:
        self.query_one("#chunk-search", Input).focus()

    def action_every_session(self) -> None:
        """The project scope: every session of this workspace (tui/screens/project_search.py)."""
        from tui.screens.project_search import ProjectSearchScreen

        self.app.push_screen(ProjectSearchScreen(self.archive))

    def action_close(self) -> None:
        self.dismiss(None)
