"""The chunk browser's project scope: every session of this workspace, as read_archive sees it."""

# The search is sessions/project_archive.py's; each hit names its session and day, and shows its
# message whole (up to a page).

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Markdown, OptionList
from textual.widgets.option_list import Option

from agent.terminal_text import visible
from sessions.archive import ChunkArchive
from sessions.archive_query import PAGE_CHARS, QueryError, SearchCancelled, compile_query
from sessions.messages import Message
from sessions.project_archive import ProjectHit, search_project
from sessions.workspace_sessions import (
    SessionRef,
    first_request,
    recorded_workspace,
    workspace_sessions,
)

# Shown before a search: what this screen does.
HINT = (
    "Search every session of this workspace: type a word or a regex. This session's hits are "
    "in its chunks; the others' are in their journals, folded or not."
)
# Sessions listed before a search, newest first: a screenful; a search reaches all of them.
MAX_LISTED = 100


def session_row(ref: SessionRef) -> str:
    """One session before a search: its id and day, then its first request."""
    return visible(f"{ref.id} · {ref.date}\n  {first_request(ref) or '(no request found)'}")


def hit_row(found: ProjectHit) -> str:
    """One hit: where it is (session and day, or this session's chunk), then its snippet."""
    entry = found.hit.entry
    if found.session is None:
        where = f"this session · chunk {entry.chunk}"
    else:
        where = f"{found.session.id} · {found.session.date}"
    return visible(f"{where} · {entry.message.id} · {entry.message.role}\n  {found.hit.snippet()}")


def message_markdown(found: ProjectHit) -> str:
    """The hit's whole message (cut at a page) as Markdown, every character made visible."""
    message: Message = found.hit.entry.message
    where = "this session" if found.session is None else f"session {found.session.id}"
    lines = [f"**{where} · {message.id} · {message.role}**", "", (message.content or "")]
    lines += [f"- tool call {call.name}: {call.arguments}" for call in message.tool_calls]
    text = "\n".join(lines)
    if len(text) > PAGE_CHARS:  # a page: Markdown lays out ~1,000 characters per 10 ms
        text = text[:PAGE_CHARS] + f"\n\n_… {len(text) - PAGE_CHARS:,} more characters_"
    return visible(text)


class ProjectSearchScreen(Screen[None]):
    """A search box over every session of the session's workspace, its hits, and the message
    of the highlighted one. Escape goes back to the chunk browser."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("ctrl+f", "focus_search", "Search"),
    ]

    def __init__(self, archive: ChunkArchive) -> None:
        super().__init__()
        self.archive = archive
        self.hits: list[ProjectHit] = []

    def compose(self) -> ComposeResult:
        yield Label(self._title(), id="chunks-title")
        yield Input(placeholder="search every session: text or a regex", id="chunk-search")
        with Horizontal(id="chunks-body"):
            yield OptionList(id="chunk-list", markup=False)
            with VerticalScroll(id="chunk-scroll"):
                yield Markdown(HINT, id="chunk-view")
        yield Footer()

    def _title(self, found: str = "") -> Content:
        title = "Every session of this workspace"
        return Content(visible(f"{title} · {found}" if found else title))

    @property
    def hit_list(self) -> OptionList:
        return self.query_one("#chunk-list", OptionList)

    @property
    def viewer(self) -> Markdown:
        return self.query_one("#chunk-view", Markdown)

    def on_mount(self) -> None:
        self.query_one("#chunk-search", Input).focus()
        self.load()

    async def _workspace(self) -> Path | None:
        return await asyncio.to_thread(recorded_workspace, self.archive.directory.parent)

    @work(group="search", exclusive=True, exit_on_error=False)
    async def load(self) -> None:
        workspace = await self._workspace()
        if workspace is None:
            await self.viewer.update("This session's workspace cannot be read from its journal.")
            return
        self.hits = []
        self.query_one("#chunks-title", Label).update(self._title())
        await self.viewer.update(HINT)
        found = await asyncio.to_thread(workspace_sessions, workspace)
        rows = await asyncio.to_thread(lambda: [session_row(ref) for ref in found[:MAX_LISTED]])
        self.hit_list.set_options(Option(row, disabled=True) for row in rows)

    @on(Input.Changed, "#chunk-search")
    def _query_changed(self, event: Input.Changed) -> None:
        if event.value.strip():
            self.search(event.value)
        else:
            self.load()

    @work(group="search", exclusive=True, exit_on_error=False)
    async def search(self, text: str) -> None:
        title = self.query_one("#chunks-title", Label)
        try:
            query = compile_query(text)
        except QueryError as error:
            self.hits = []
            self.hit_list.clear_options()
            await self.viewer.update(visible(str(error)))
            return
        workspace = await self._workspace()
        if workspace is None:
            return
        stop = threading.Event()
        try:
            found = await asyncio.to_thread(
                search_project, query, workspace, self.archive, stop.is_set
            )
        except asyncio.CancelledError:
            stop.set()  # a newer query replaced this one: the thread gives up between messages
            raise
        except SearchCancelled:
            return
        self.hits = found.hits
        self.hit_list.set_options(
            Option(hit_row(hit), id=str(n)) for n, hit in enumerate(found.hits)
        )
        more = sum(found.more.values())
        described = (
            f"{len(found.hits) + more} hits in {found.searched} sessions for {query.described}"
        )
        if found.stopped_early:
            described += f" (search stopped early: {found.stopped_early})"
        if found.notice:
            described += f" ({found.notice})"
        title.update(self._title(described))
        if self.hits:
            self.hit_list.highlighted = 0
        else:
            await self.viewer.update(
                visible(f"Nothing in this workspace's sessions matches `{text.strip()}`.")
            )

    @on(OptionList.OptionHighlighted, "#chunk-list")
    async def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None and int(event.option.id) < len(self.hits):
            await self.viewer.update(message_markdown(self.hits[int(event.option.id)]))

    @on(Input.Submitted, "#chunk-search")
    def _search_submitted(self) -> None:
        self.hit_list.focus()

    def action_focus_search(self) -> None:
        self.query_one("#chunk-search", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)
